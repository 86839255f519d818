/* The neural evaluation's int16 loops, compiled twice where the compiler can: for AVX2 and for
 * the build's baseline (x86-64-v2 by default), the processor picking one when the module loads
 * (GCC's target_clones). The baseline build stays portable; a machine with AVX2 still gets
 * 16 lanes instead of 8. The Cython side (nnue_accumulator.pxi) calls these and nothing else
 * in the inner loops. */
#ifndef PONDEROSA_NNUE_KERNELS_H
#define PONDEROSA_NNUE_KERNELS_H
#include <stdint.h>

/* The first layer's width: 256 unless the build sets it (setup.py, PONDEROSA_NNUE_HIDDEN). A network
 * file of another width is refused at load (ponderosa.engine.nnue.network_file). */
#ifndef PONDEROSA_NNUE_HIDDEN
#define PONDEROSA_NNUE_HIDDEN 256
#endif
#if PONDEROSA_NNUE_HIDDEN % 32 != 0 || PONDEROSA_NNUE_HIDDEN < 32 || PONDEROSA_NNUE_HIDDEN > 2048
#error "PONDEROSA_NNUE_HIDDEN must be a multiple of 32 from 32 to 2048"
#endif

/* PONDEROSA_NNUE_NO_CLONES: the profile-guided build's instrumented pass (setup.py), whose
 * instrumented clone resolvers crash when they run at first call. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__AVX2__) \
    && !defined(PONDEROSA_NNUE_NO_CLONES)
#define PONDEROSA_NNUE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PONDEROSA_NNUE_CLONES
#endif

PONDEROSA_NNUE_CLONES
static void nnue_kernel_add(int16_t* restrict values, const int16_t* restrict column) {
    for (int i = 0; i < PONDEROSA_NNUE_HIDDEN; i++) values[i] += column[i];
}

PONDEROSA_NNUE_CLONES
static void nnue_kernel_sub(int16_t* restrict values, const int16_t* restrict column) {
    for (int i = 0; i < PONDEROSA_NNUE_HIDDEN; i++) values[i] -= column[i];
}

PONDEROSA_NNUE_CLONES
static void nnue_kernel_add_sub(int16_t* restrict out, const int16_t* restrict source,
                                const int16_t* restrict a, const int16_t* restrict s) {
    for (int i = 0; i < PONDEROSA_NNUE_HIDDEN; i++) out[i] = source[i] + a[i] - s[i];
}

PONDEROSA_NNUE_CLONES
static void nnue_kernel_add_sub_sub(int16_t* restrict out, const int16_t* restrict source,
                                    const int16_t* restrict a, const int16_t* restrict s,
                                    const int16_t* restrict t) {
    for (int i = 0; i < PONDEROSA_NNUE_HIDDEN; i++) out[i] = source[i] + a[i] - s[i] - t[i];
}

PONDEROSA_NNUE_CLONES
static void nnue_kernel_add_add_sub_sub(int16_t* restrict out, const int16_t* restrict source,
                                        const int16_t* restrict a, const int16_t* restrict b,
                                        const int16_t* restrict s, const int16_t* restrict t) {
    for (int i = 0; i < PONDEROSA_NNUE_HIDDEN; i++) out[i] = source[i] + a[i] + b[i] - s[i] - t[i];
}

/* One half's sum of clamp(v, 0, qa)^2 * w in int32 lanes; inlined into each clone of its caller. */
static inline __attribute__((always_inline)) int32_t nnue_output_half(const int16_t* restrict values,
                                                                      const int16_t* restrict weights, int32_t qa) {
    int32_t total = 0;
    for (int i = 0; i < PONDEROSA_NNUE_HIDDEN; i++) {
        int32_t v = values[i] < 0 ? 0 : (values[i] > qa ? qa : values[i]);
        total += v * v * weights[i];
    }
    return total;
}

/* The same for output weights within +-128, so that clamp(v) * w fits int16: the products are
 * taken in 16 lanes and multiplied by v again pairwise into int32 (pmullw, then pmaddwd), where
 * the half above widens every lane to int32 first. Equal to it for such weights. */
static inline __attribute__((always_inline)) int32_t nnue_output_half_narrow(const int16_t* restrict values,
                                                                             const int16_t* restrict weights,
                                                                             int16_t qa) {
    int32_t total = 0;
    for (int i = 0; i < PONDEROSA_NNUE_HIDDEN; i++) {
        int16_t v = values[i] < 0 ? 0 : (values[i] > qa ? qa : values[i]);
        int16_t product = (int16_t)(v * weights[i]);
        total += (int32_t)product * (int32_t)v;
    }
    return total;
}

/* Sum over both halves of clamp(v, 0, qa)^2 * w; the weights are side to move's half first. */
PONDEROSA_NNUE_CLONES
static int32_t nnue_kernel_output(const int16_t* restrict us, const int16_t* restrict them,
                                  const int16_t* restrict weights, int32_t qa) {
    return nnue_output_half(us, weights, qa) + nnue_output_half(them, weights + PONDEROSA_NNUE_HIDDEN, qa);
}

/* The same with the narrow halves: for networks whose output weights are all within +-128. */
PONDEROSA_NNUE_CLONES
static int32_t nnue_kernel_output_narrow(const int16_t* restrict us, const int16_t* restrict them,
                                         const int16_t* restrict weights, int16_t qa) {
    return nnue_output_half_narrow(us, weights, qa)
        + nnue_output_half_narrow(them, weights + PONDEROSA_NNUE_HIDDEN, qa);
}

#endif
