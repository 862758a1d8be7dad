/* bandwidth.c - the machine's sustained memory read bandwidth.
 *
 * Decode reads every weight once per token, so read bandwidth is its roofline.
 * Each of T threads (OpenMP) sums its slice of a 512 MiB float array with
 * AVX2 loads into 4 independent accumulators (enough loads in flight to
 * saturate the memory system rather than the add latency). Prints the best
 * of 15 passes in GB/s (1e9 bytes/s) as JSON on the last line.
 *
 *   gcc -O3 -mavx2 -mfma -fopenmp bench/bandwidth.c -o bandwidth
 *   ./bandwidth [threads] [MiB]
 */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double now(void) { return omp_get_wtime(); }

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : omp_get_max_threads();
  size_t mib = argc > 2 ? (size_t)atol(argv[2]) : 512;
  size_t n = mib * 1024 * 1024 / sizeof(float);
  n -= n % (32 * (size_t)threads);
  float *a = aligned_alloc(64, n * sizeof(float));
  if (!a) {
    fprintf(stderr, "cannot allocate %zu MiB\n", mib);
    return 1;
  }
  omp_set_num_threads(threads);
  /* First touch from the threads that will read, so pages land where used. */
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i)
    a[i] = (float)(i & 1023) * 1e-3f;

  double best = 1e30, sink = 0;
  for (int pass = 0; pass < 15; ++pass) {
    double start = now(), total = 0;
#pragma omp parallel reduction(+ : total)
    {
      int t = omp_get_thread_num(), nt = omp_get_num_threads();
      size_t chunk = n / nt, begin = chunk * t, end = begin + chunk;
      __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
      for (size_t i = begin; i < end; i += 32) {
        s0 = _mm256_add_ps(s0, _mm256_load_ps(a + i));
        s1 = _mm256_add_ps(s1, _mm256_load_ps(a + i + 8));
        s2 = _mm256_add_ps(s2, _mm256_load_ps(a + i + 16));
        s3 = _mm256_add_ps(s3, _mm256_load_ps(a + i + 24));
      }
      __m256 s = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
      float lanes[8];
      _mm256_storeu_ps(lanes, s);
      for (int j = 0; j < 8; ++j)
        total += lanes[j];
    }
    double elapsed = now() - start;
    sink += total;
    if (elapsed < best)
      best = elapsed;
  }
  double gbs = n * sizeof(float) / best / 1e9;
  printf("read %zu MiB with %d threads: best %.3f ms (checksum %g)\n", mib,
         threads, best * 1e3, sink);
  printf("{\"read_gb_per_s\": %.3f, \"threads\": %d, \"mib\": %zu}\n", gbs,
         threads, mib);
  free(a);
  return 0;
}
