/*
 * Unit tests of tp_elf_resolve (src/elfsym.c): function symbols to uprobe
 * file offsets.  Real files: this test's own executable (a function of its
 * own and main, through /proc/self/exe) and the libc it runs with (malloc),
 * each held against the offset /proc/self/maps gives for the function's
 * address and against the function's bytes in memory.  A made-up ELF file
 * for the rules (symtab before dynsym, versions, types, segments), and the
 * files that are not ELF at all (missing, directory, device, FIFO, text).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "tp_elfsym.h"

/* A function of this executable, to find in its own file. */
__attribute__((noinline, used)) int tp_elfsym_test_target(int x);
__attribute__((noinline, used)) int tp_elfsym_test_target(int x)
{
    return x * 3 + 1;
}

int main(void);

struct tmp {
    char dir[64];
    char path[128];
};

static void tmp_path(struct tmp *t, const char *name)
{
    snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, name);
}

static int setup(void **state)
{
    struct tmp *t = calloc(1, sizeof(*t));
    if (!t)
        return -1;
    snprintf(t->dir, sizeof(t->dir), "/tmp/tpelfsym.XXXXXX");
    if (!mkdtemp(t->dir)) {
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    struct tmp *t = *state;
    char cmd[160];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
    int rc = system(cmd);
    free(t);
    return rc == 0 ? 0 : -1;
}

/* The file and offset /proc/self/maps give for address addr. */
static bool maps_offset(const void *addr, char *path, size_t len, uint64_t *offset)
{
    FILE *f = fopen("/proc/self/maps", "re");
    char line[4352], file[4096];
    bool found = false;
    uintptr_t a = (uintptr_t)addr;
    assert_non_null(f);
    while (!found && fgets(line, sizeof(line), f)) {
        unsigned long start, end, off;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %4095[^\n]", &start, &end, perms, &off,
                   file) == 5 && a >= start && a < end) {
            snprintf(path, len, "%s", file);
            *offset = a - start + off;
            found = true;
        }
    }
    fclose(f);
    return found;
}

/* The 16 bytes at offset in path equal the 16 bytes of code at fn. */
static void same_bytes(const char *path, uint64_t offset, const void *fn)
{
    unsigned char disk[16], mem[16];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    assert_true(fd >= 0);
    assert_int_equal(fstat(fd, &st), 0);
    assert_true(offset > 0 && offset + sizeof(disk) <= (uint64_t)st.st_size);
    assert_int_equal(pread(fd, disk, sizeof(disk), (off_t)offset), sizeof(disk));
    close(fd);
    memcpy(mem, fn, sizeof(mem));
    assert_memory_equal(disk, mem, sizeof(mem));
}

/* Resolve symbol in path; it must be where fn is (maps and bytes). */
static void check_function(const char *path, const char *symbol, const void *fn)
{
    char err[256] = "x", mapped[4096];
    uint64_t offset = 0, want;
    int rc = tp_elf_resolve(path, symbol, &offset, err, sizeof(err));
    if (rc != 0)
        fail_msg("%s in %s: %d %s", symbol, path, rc, err);
    assert_string_equal(err, "");
    assert_true(maps_offset(fn, mapped, sizeof(mapped), &want));
    assert_int_equal(offset, want);
    same_bytes(path, offset, fn);
}

static void test_own_executable(void **state)
{
    (void)state;
    char exe[4096];
    uint64_t off;
    const void *target = (const void *)(uintptr_t)&tp_elfsym_test_target;
    const void *main_fn = (const void *)(uintptr_t)&main;
    assert_int_equal(tp_elfsym_test_target(1), 4);
    check_function("/proc/self/exe", "tp_elfsym_test_target", target);
    assert_true(maps_offset(target, exe, sizeof(exe), &off));
    check_function(exe, "tp_elfsym_test_target", target);
    check_function("/proc/self/exe", "main", main_fn);
}

static void test_libc_malloc(void **state)
{
    (void)state;
    Dl_info info;
    const void *fn = (const void *)(uintptr_t)&malloc;
    if (!dladdr(fn, &info) || !info.dli_fname || !strstr(info.dli_fname, "libc.so")) {
        skip();             /* malloc interposed (a sanitizer build) */
        return;
    }
    char path[4096];
    uint64_t off;
    assert_true(maps_offset(fn, path, sizeof(path), &off));
    check_function(path, "malloc", fn);
}

static void expect_error(const char *path, const char *symbol, int code, const char *want)
{
    char err[256] = "";
    uint64_t offset = 12345;
    int rc = tp_elf_resolve(path, symbol, &offset, err, sizeof(err));
    if (rc != code || !strstr(err, want))
        fail_msg("%s %s: %d '%s' (want %d '%s')", path, symbol, rc, err, code, want);
}

static void put_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void test_not_elf(void **state)
{
    struct tmp *t = *state;
    tmp_path(t, "missing");
    expect_error(t->path, "main", -ENOENT, "No such file or directory");
    expect_error(t->dir, "main", -EINVAL, "is not a regular file");
    expect_error("/dev/null", "main", -EINVAL, "/dev/null is not a regular file");
    tmp_path(t, "fifo");
    assert_int_equal(mkfifo(t->path, 0600), 0);
    alarm(10);                                  /* a blocking open would hang: fail instead */
    expect_error(t->path, "main", -EINVAL, "is not a regular file");
    alarm(0);
    tmp_path(t, "text");
    put_file(t->path, "#!/bin/sh\necho hello\n", 21);
    expect_error(t->path, "main", -ENOEXEC, "is not an ELF file");
    tmp_path(t, "empty");
    put_file(t->path, "", 0);
    expect_error(t->path, "main", -ENOEXEC, "is not an ELF file");
    expect_error("/proc/self/exe", "no_such_function_here", -ESRCH,
                 "no function no_such_function_here in /proc/self/exe");
    /* A data object is not a function. */
    expect_error("/proc/self/exe", "environ", -ESRCH, "no function");
}

#if __SIZEOF_POINTER__ == 8

/* A made-up ELF executable of this host, built in a buffer. */
struct elf_img {
    unsigned char b[4096];
    size_t n;
};

static size_t img_put(struct elf_img *m, const void *p, size_t len)
{
    size_t at = (m->n + 7) & ~(size_t)7;
    assert_true(at + len <= sizeof(m->b));
    memcpy(m->b + at, p, len);
    m->n = at + len;
    return at;
}

struct sym_def {
    const char *name;
    int type;
    uint16_t shndx;
    uint64_t value;
};

/* Symbols into a table, names into strtab (whose size is *strn). */
static size_t img_syms(struct elf_img *m, const struct sym_def *defs, size_t n, char *strtab,
                       size_t *strn)
{
    Elf64_Sym syms[16];
    assert_true(n < 16);
    memset(syms, 0, sizeof(syms));
    for (size_t i = 0; i < n; i++) {
        syms[i + 1].st_name = (Elf64_Word)*strn;
        syms[i + 1].st_info = ELF64_ST_INFO(STB_GLOBAL, defs[i].type);
        syms[i + 1].st_shndx = defs[i].shndx;
        syms[i + 1].st_value = defs[i].value;
        memcpy(strtab + *strn, defs[i].name, strlen(defs[i].name) + 1);
        *strn += strlen(defs[i].name) + 1;
    }
    return img_put(m, syms, (n + 1) * sizeof(Elf64_Sym));
}

static const struct sym_def symtab_defs[] = {
    { "ver@V1", STT_FUNC, 1, 0x1050 },       /* an old version first: the default wins */
    { "inside", STT_FUNC, 1, 0x1010 },
    { "outside", STT_FUNC, 1, 0x9000 },      /* past every segment */
    { "bss_fn", STT_FUNC, 1, 0x1800 },       /* in memory only, not in the file */
    { "undef", STT_FUNC, SHN_UNDEF, 0x1020 },
    { "obj", STT_OBJECT, 1, 0x1030 },
    { "ver@@V2", STT_FUNC, 1, 0x1040 },
    { "ifn", STT_GNU_IFUNC, 1, 0x1060 },
    { "zero", STT_FUNC, 1, 0 },
    { "shared", STT_FUNC, 1, 0x1070 },
};
static const struct sym_def dynsym_defs[] = {
    { "shared", STT_FUNC, 1, 0x1080 },       /* symtab first */
    { "dynonly", STT_FUNC, 1, 0x1090 },
};

static Elf64_Shdr section(Elf64_Word name, Elf64_Word type, size_t off, size_t size,
                          Elf64_Word link, size_t entsize)
{
    Elf64_Shdr s;
    memset(&s, 0, sizeof(s));
    s.sh_name = name;
    s.sh_type = type;
    s.sh_offset = off;
    s.sh_size = size;
    s.sh_link = link;
    s.sh_entsize = entsize;
    s.sh_addralign = 8;
    return s;
}

#define NSYMTAB (sizeof(symtab_defs) / sizeof(symtab_defs[0]))
#define NDYNSYM (sizeof(dynsym_defs) / sizeof(dynsym_defs[0]))

static void put_headers(struct elf_img *m, uint16_t type, uint16_t machine, size_t shoff)
{
    Elf64_Ehdr eh;
    Elf64_Phdr ph;
    memset(&eh, 0, sizeof(eh));
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? ELFDATA2MSB : ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = type;
    eh.e_machine = machine;
    eh.e_version = EV_CURRENT;
    eh.e_phoff = sizeof(eh);
    eh.e_shoff = shoff;
    eh.e_ehsize = sizeof(eh);
    eh.e_phentsize = sizeof(ph);
    eh.e_phnum = 1;
    eh.e_shentsize = sizeof(Elf64_Shdr);
    eh.e_shnum = 6;
    eh.e_shstrndx = 5;
    memcpy(m->b, &eh, sizeof(eh));
    memset(&ph, 0, sizeof(ph));
    ph.p_type = PT_LOAD;
    ph.p_flags = PF_R | PF_X;
    ph.p_offset = 0x200;
    ph.p_vaddr = 0x1000;
    ph.p_paddr = 0x1000;
    ph.p_filesz = 0x100;
    ph.p_memsz = 0x1000;
    ph.p_align = 0x1000;
    memcpy(m->b + sizeof(eh), &ph, sizeof(ph));
}

/*
 * One PT_LOAD: vaddr 0x1000 from file offset 0x200 (.text), 0x100 bytes in
 * the file, 0x1000 in memory; then .symtab, .dynsym, .strtab, .shstrtab.
 */
static void build_elf(struct elf_img *m, uint16_t type, uint16_t machine)
{
    static const char shstr[] = "\0.text\0.symtab\0.dynsym\0.strtab\0.shstrtab";
    char strtab[512] = "";
    size_t strn = 1;
    memset(m, 0, sizeof(*m));
    m->n = 0x200;
    size_t text = img_put(m, (unsigned char[0x100]){ 0 }, 0x100);
    size_t symtab = img_syms(m, symtab_defs, NSYMTAB, strtab, &strn);
    size_t dynsym = img_syms(m, dynsym_defs, NDYNSYM, strtab, &strn);
    size_t str = img_put(m, strtab, strn);
    size_t shs = img_put(m, shstr, sizeof(shstr));
    Elf64_Shdr sh[6] = {
        section(0, SHT_NULL, 0, 0, 0, 0),
        section(1, SHT_PROGBITS, text, 0x100, 0, 0),
        section(7, SHT_SYMTAB, symtab, (NSYMTAB + 1) * sizeof(Elf64_Sym), 4, sizeof(Elf64_Sym)),
        section(15, SHT_DYNSYM, dynsym, (NDYNSYM + 1) * sizeof(Elf64_Sym), 4, sizeof(Elf64_Sym)),
        section(23, SHT_STRTAB, str, strn, 0, 0),
        section(31, SHT_STRTAB, shs, sizeof(shstr), 0, 0),
    };
    sh[1].sh_addr = 0x1000;
    put_headers(m, type, machine, img_put(m, sh, sizeof(sh)));
}

static uint16_t host_machine(void)
{
#if defined(__x86_64__)
    return EM_X86_64;
#elif defined(__aarch64__)
    return EM_AARCH64;
#else
    return EM_NONE;
#endif
}

static void expect_offset(const char *path, const char *symbol, uint64_t want)
{
    char err[256] = "x";
    uint64_t offset = 0;
    int rc = tp_elf_resolve(path, symbol, &offset, err, sizeof(err));
    if (rc != 0 || offset != want)
        fail_msg("%s: %d 0x%llx (want 0x%llx) %s", symbol, rc, (unsigned long long)offset,
                 (unsigned long long)want, err);
    assert_string_equal(err, "");
}

static void test_made_up_elf(void **state)
{
    struct tmp *t = *state;
    struct elf_img m;
    if (host_machine() == EM_NONE) {
        skip();
        return;
    }
    build_elf(&m, ET_DYN, host_machine());
    tmp_path(t, "lib.so");
    put_file(t->path, m.b, m.n);
    expect_offset(t->path, "inside", 0x210);
    expect_offset(t->path, "ver", 0x240);           /* ver@@V2 */
    expect_offset(t->path, "ver@V1", 0x250);        /* asked for by its full name */
    expect_offset(t->path, "ifn", 0x260);
    expect_offset(t->path, "shared", 0x270);        /* .symtab's */
    expect_offset(t->path, "dynonly", 0x290);       /* .dynsym's */
    expect_error(t->path, "outside", -ERANGE, "is in no loadable segment");
    expect_error(t->path, "bss_fn", -ERANGE, "is in no loadable segment");
    expect_error(t->path, "undef", -ESRCH, "no function undef");
    expect_error(t->path, "obj", -ESRCH, "no function obj");
    expect_error(t->path, "zero", -ESRCH, "no function zero");
    expect_error(t->path, "ve", -ESRCH, "no function ve");
    expect_error(t->path, "inside2", -ESRCH, "no function inside2");

    build_elf(&m, ET_EXEC, host_machine());
    put_file(t->path, m.b, m.n);
    expect_offset(t->path, "inside", 0x210);
    build_elf(&m, ET_REL, host_machine());
    put_file(t->path, m.b, m.n);
    expect_error(t->path, "inside", -ENOEXEC, "not an executable or a shared object");
    build_elf(&m, ET_DYN, host_machine() == EM_X86_64 ? EM_AARCH64 : EM_X86_64);
    put_file(t->path, m.b, m.n);
    expect_error(t->path, "inside", -ENOEXEC, "another machine");
    m.b[EI_CLASS] = ELFCLASS32;
    put_file(t->path, m.b, m.n);
    expect_error(t->path, "inside", -ENOEXEC, "");
    put_file(t->path, m.b, 40);                     /* cut inside the header */
    expect_error(t->path, "inside", -ENOEXEC, "");
}

#else
static void test_made_up_elf(void **state)
{
    (void)state;
    skip();
}
#endif

static void test_reason_buffer(void **state)
{
    (void)state;
    char small[10];
    uint64_t off;
    memset(small, 'Z', sizeof(small));
    assert_int_equal(tp_elf_resolve("/nonexistent/x", "f", &off, small, 6), -ENOENT);
    assert_int_equal(strlen(small), 5);
    assert_int_equal(small[6], 'Z');
    assert_int_equal(tp_elf_resolve("/nonexistent/x", "f", &off, NULL, 0), -ENOENT);
    /* A path with control bytes is shown printable. */
    char err[256];
    assert_int_equal(tp_elf_resolve("/nonexistent/\n\x1b", "f", &off, err, sizeof(err)),
                     -ENOENT);
    assert_non_null(strstr(err, "/nonexistent/??"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_executable),
        cmocka_unit_test(test_libc_malloc),
        cmocka_unit_test_setup_teardown(test_not_elf, setup, teardown),
        cmocka_unit_test_setup_teardown(test_made_up_elf, setup, teardown),
        cmocka_unit_test(test_reason_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
