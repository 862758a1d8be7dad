"""The model families of torch_reference.py, one module each.

A family is a module in this folder; torch_reference.py finds every one,
so a new family adds one file. It defines

  MAKES                  {make-model FAMILY name: function(args)} writing a
                         seeded random-weight model of that name
  reads(model, config)   whether compare's MODEL is the family's: `config`
                         is MODEL's config.json for a directory, else None
  reference_logits(model, config, ids, args)
                         the float64 reference's logits [len(ids), vocab]
                         (what compare checks LOGITS against)

and optionally

  DEFAULT_HIDDEN         make-model's --hidden when none is given
  ROUNDING               which of compare's --projections, --kv-cache and
                         --activations its reference models (others refuse
                         them rather than compare against unrounded math)
  add_make_arguments(parser), add_compare_arguments(parser)
                         make-model's and compare's options of its own
  add_commands(subparsers) -> {command: handler(args)}
                         commands of its own (bert's encoder checks)

The families share nothing with tfmc; what they share with each other is in
common.py (not a family: it defines no MAKES).
"""
import importlib
import os
import pkgutil


def families():
    """Every family module, in name order."""
    found = []
    for info in sorted(pkgutil.iter_modules([os.path.dirname(__file__)]),
                       key=lambda info: info.name):
        module = importlib.import_module(__name__ + "." + info.name)
        if hasattr(module, "MAKES"):
            found.append(module)
    return found
