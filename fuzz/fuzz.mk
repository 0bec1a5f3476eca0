# make fuzz, make fuzz-short: the libFuzzer harnesses fuzz/fuzz_*.c.
# Included by GNUmakefile.
#
#   make fuzz         each harness for FUZZ_SECS seconds (default 60) on its
#                     checked-in corpus fuzz/corpus/NAME; what it finds new is
#                     merged into that corpus, minimised (-merge=1) against
#                     the real inputs there (seed-*), which are always kept
#   make fuzz-short   each harness for FUZZ_SHORT_SECS seconds (default 4) on
#                     its corpus (new inputs go to a scratch directory), then
#                     every crash reproducer in fuzz/regress/NAME, then the
#                     reproducers and the corpus again through a gcc build of
#                     the harness with fuzz/replay_main.c instead of libFuzzer
#   make fuzz-replay  only the gcc replay (no clang needed)
#   FUZZ_ONLY="page format" limits any of them to those harnesses.
#
# Harnesses are built into build-fuzz/ with clang and
# -fsanitize=fuzzer,address,undefined; the replay binaries with gcc and
# -fsanitize=address,undefined.  A crash stops the run; its input is in
# build-fuzz/artifacts/.  Once the bug is fixed, the input goes into
# fuzz/regress/NAME for good.  New corpus seeds of real sub-buffers:
# fuzz/capture-pages.sh (root; uses a private tracefs instance).

.PHONY: fuzz fuzz-short fuzz-replay fuzz-build fuzz-replay-build

FUZZ_CC         ?= clang-14
FUZZ_REPLAY_CC  ?= gcc
FUZZ_B          := build-fuzz
FUZZ_SECS       ?= 60
FUZZ_SHORT_SECS ?= 4
FUZZ_NAMES      := filter config ctlparse page format agg probespec identity unpack printfmt
FUZZ_ONLY       ?= $(FUZZ_NAMES)
FUZZ_RUN_NAMES  := $(filter $(FUZZ_ONLY),$(FUZZ_NAMES))

FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude $(if $(PCP_PREFIX),-I$(PCP_PREFIX)/include) \
               $(shell pkg-config --cflags libtraceevent 2>/dev/null) -g -O1 -fno-omit-frame-pointer
FUZZ_SAN    := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
REPLAY_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all

# What each harness links, and its libFuzzer options.
FUZZ_SRC_filter   := src/filter.c
FUZZ_SRC_config   := src/config.c src/with.c src/util.c src/clock.c src/probespec.c
FUZZ_SRC_ctlparse := src/ctlparse.c src/with.c src/util.c src/clock.c src/filter.c src/probespec.c
FUZZ_SRC_page     := src/decode.c src/fields.c src/catalog.c src/filter.c src/util.c src/clock.c
FUZZ_LIB_page     := -ltraceevent
FUZZ_SRC_format   := src/catalog.c src/names.c src/fields.c src/filter.c src/ring.c src/util.c src/clock.c
FUZZ_LIB_format   := $(LIBPCP_PMDA) -ltraceevent
FUZZ_SRC_agg      := src/agg.c src/fields.c src/comms.c src/ksyms.c src/valname.c
FUZZ_SRC_probespec := src/probespec.c
FUZZ_SRC_identity := src/identity.c src/statedir.c src/util.c src/clock.c
FUZZ_SRC_unpack   := client/unpack.c
FUZZ_SRC_printfmt := src/printfmt.c src/netaddr.c src/ksyms.c
FUZZ_LIB_printfmt := -ltraceevent
FUZZ_OPT_filter   := -max_len=2100
FUZZ_OPT_config   := -max_len=8192
FUZZ_OPT_ctlparse := -max_len=4200
FUZZ_OPT_page     := -max_len=4096
FUZZ_OPT_format   := -max_len=8192 -detect_leaks=0
FUZZ_OPT_agg      := -max_len=4096
FUZZ_OPT_probespec := -max_len=2048
FUZZ_OPT_identity := -max_len=8192
FUZZ_OPT_unpack   := -max_len=8192
FUZZ_OPT_printfmt := -max_len=12288 -detect_leaks=0
FUZZ_OPTS := -timeout=10 -rss_limit_mb=2048 -print_final_stats=1

# libtraceevent leaks on some malformed formats (inside tep_parse_format):
# suppressed, and for fuzz_format leaks are looked for only at exit, not
# after each input (each check would scan the heap: 40 times slower).
FUZZ_ENV := LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp:print_suppressions=0 \
            UBSAN_OPTIONS=print_stacktrace=1

FUZZ_HAVE_CC := $(shell command -v $(FUZZ_CC) 2>/dev/null)

define FUZZ_RULES
$(FUZZ_B)/fuzz_$(1): fuzz/fuzz_$(1).c $$(FUZZ_SRC_$(1)) $$(wildcard include/*.h) fuzz/fuzz.mk
	@mkdir -p $(FUZZ_B)
	$$(FUZZ_CC) $$(FUZZ_CFLAGS) $$(FUZZ_SAN) -o $$@ fuzz/fuzz_$(1).c $$(FUZZ_SRC_$(1)) $$(FUZZ_LIB_$(1))

$(FUZZ_B)/replay_$(1): fuzz/fuzz_$(1).c fuzz/replay_main.c $$(FUZZ_SRC_$(1)) $$(wildcard include/*.h) fuzz/fuzz.mk
	@mkdir -p $(FUZZ_B)
	$$(FUZZ_REPLAY_CC) $$(FUZZ_CFLAGS) $$(REPLAY_SAN) -o $$@ fuzz/replay_main.c fuzz/fuzz_$(1).c $$(FUZZ_SRC_$(1)) $$(FUZZ_LIB_$(1))
endef
$(foreach n,$(FUZZ_NAMES),$(eval $(call FUZZ_RULES,$(n))))
# src/valname.c's generated syscall table.
$(FUZZ_B)/fuzz_agg $(FUZZ_B)/replay_agg: $(B)/tp_syscalls.inc
$(FUZZ_B)/fuzz_agg $(FUZZ_B)/replay_agg: FUZZ_CFLAGS += -I$(B) -Wno-override-init
# The client's rooms.
$(FUZZ_B)/fuzz_unpack $(FUZZ_B)/replay_unpack: FUZZ_CFLAGS += -Iclient
# The kernel's formats the print-format harness renders records of.
$(FUZZ_B)/fuzz_printfmt $(FUZZ_B)/replay_printfmt: FUZZ_CFLAGS += -DTP_FUZZ_FORMATS='"$(CURDIR)/fuzz/corpus/format"'

fuzz-build: $(FUZZ_RUN_NAMES:%=$(FUZZ_B)/fuzz_%)
fuzz-replay-build: $(FUZZ_RUN_NAMES:%=$(FUZZ_B)/replay_%)

# One harness $(1) for $(2) seconds: new inputs into dir $(3), log in $(4).
fuzz_run = mkdir -p $(FUZZ_B)/artifacts $(3) && \
	$(FUZZ_ENV) $(FUZZ_B)/fuzz_$(1) $(FUZZ_OPTS) $(FUZZ_OPT_$(1)) -max_total_time=$(2) \
	    -artifact_prefix=$(FUZZ_B)/artifacts/$(1)- $(3) fuzz/corpus/$(1) >$(4) 2>&1 || \
	    { tail -n 60 $(4); echo "fuzz_$(1) failed: its input is in $(FUZZ_B)/artifacts/"; exit 1; }

# make fuzz, for harness $(1): run, then merge into a fresh directory that
# starts with the seeds, and make that the corpus.  The merge keeps an input
# for each new edge, not for each new hit count (-use_counters=0): every
# edge reached stays reached, in a corpus a fraction of the size.
fuzz_long = echo "== fuzz_$(1): $(FUZZ_SECS) s"; \
	rm -rf $(FUZZ_B)/new/$(1) $(FUZZ_B)/merged/$(1); \
	mkdir -p fuzz/corpus/$(1) $(FUZZ_B)/merged/$(1); \
	$(call fuzz_run,$(1),$(FUZZ_SECS),$(FUZZ_B)/new/$(1),$(FUZZ_B)/fuzz_$(1).log); \
	grep -E '^(\#[0-9]+ +DONE|stat::)' $(FUZZ_B)/fuzz_$(1).log || true; \
	cp fuzz/corpus/$(1)/seed-* $(FUZZ_B)/merged/$(1)/ 2>/dev/null || true; \
	$(FUZZ_ENV) $(FUZZ_B)/fuzz_$(1) $(FUZZ_OPT_$(1)) -use_counters=0 -merge=1 $(FUZZ_B)/merged/$(1) \
	    fuzz/corpus/$(1) $(FUZZ_B)/new/$(1) >>$(FUZZ_B)/fuzz_$(1).log 2>&1; \
	find fuzz/corpus/$(1) -type f ! -name 'seed-*' -delete; \
	cp -n $(FUZZ_B)/merged/$(1)/* fuzz/corpus/$(1)/ 2>/dev/null || true; \
	echo "   corpus fuzz/corpus/$(1): $$(ls fuzz/corpus/$(1) | wc -l) files, $$(du -sk fuzz/corpus/$(1) | cut -f1) KiB"

# make fuzz-short, for harness $(1): a short run on a scratch corpus, then
# the reproducers.
fuzz_short = rm -rf $(FUZZ_B)/short/$(1); \
	$(call fuzz_run,$(1),$(FUZZ_SHORT_SECS),$(FUZZ_B)/short/$(1),$(FUZZ_B)/short_$(1).log); \
	echo "fuzz_$(1): $$(grep -oE '^Done [0-9]+ runs in [0-9]+ second' $(FUZZ_B)/short_$(1).log)"; \
	if ls fuzz/regress/$(1)/* >/dev/null 2>&1; then \
	    $(FUZZ_ENV) $(FUZZ_B)/fuzz_$(1) $(FUZZ_OPTS) fuzz/regress/$(1)/* >$(FUZZ_B)/regress_$(1).log 2>&1 || \
	        { tail -n 60 $(FUZZ_B)/regress_$(1).log; echo "fuzz_$(1): a reproducer in fuzz/regress/$(1) fails again"; exit 1; }; \
	    echo "fuzz_$(1): $$(ls fuzz/regress/$(1) | wc -l) reproducers pass"; \
	fi

# The gcc build of harness $(1) on its reproducers and its corpus.
fuzz_replay = dirs=""; for d in fuzz/regress/$(1) fuzz/corpus/$(1); do \
	    if [ -d $$d ]; then dirs="$$dirs $$d"; fi; done; \
	if [ -n "$$dirs" ]; then \
	    $(FUZZ_ENV) $(FUZZ_B)/replay_$(1) $$dirs >$(FUZZ_B)/replay_$(1).log 2>&1 || \
	        { tail -n 60 $(FUZZ_B)/replay_$(1).log; echo "replay_$(1) failed"; exit 1; }; \
	    echo "replay_$(1) (gcc): $$(tail -n 1 $(FUZZ_B)/replay_$(1).log | sed 's/.*: //')"; \
	fi

fuzz: fuzz-build
	@set -e; $(foreach n,$(FUZZ_RUN_NAMES),$(call fuzz_long,$(n));)

fuzz-short: $(if $(FUZZ_HAVE_CC),fuzz-build) fuzz-replay-build
ifneq ($(FUZZ_HAVE_CC),)
	@set -e; $(foreach n,$(FUZZ_RUN_NAMES),$(call fuzz_short,$(n));)
else
	@echo "fuzz-short: $(FUZZ_CC) not found: libFuzzer runs skipped, replaying only"
endif
	@$(MAKE) --no-print-directory fuzz-replay

fuzz-replay: fuzz-replay-build
	@set -e; $(foreach n,$(FUZZ_RUN_NAMES),$(call fuzz_replay,$(n));)
