/* The shared-library target of the dynamic-probe tests (see tpprobe.c). */
__attribute__((noinline)) long tp_lib_target(long x)
{
    __asm__ volatile("" : : "r"(x) : "memory");
    return x + 7;
}
