# make bench: the benchmark (see bench/README.md).  Included by GNUmakefile.
.PHONY: bench bench-build bench-archive
BENCH_BIN := $(B)/tpbench_load $(B)/bclient $(B)/tpbench_blockcat $(B)/tpbench_drain $(B)/encbench $(B)/aggbench $(B)/renderbench $(B)/tpbench_probe $(B)/unpackbench $(B)/linebench $(B)/burstbench $(B)/fillbench

bench-build: $(B)/pmdatracepoint $(B)/pcp-tracepoint $(BENCH_BIN) help.dir

# Not named tpbench_gen: only its timed loop runs under that comm.
$(B)/tpbench_load: bench/src/tpbench_gen.c | $(B)
	$(CC) $(TP_CFLAGS) -o $@ $<

$(B)/tpbench_probe: bench/src/probebench.c bench/src/benchutil.h | $(B)
	$(CC) $(TP_CFLAGS) -O2 -o $@ $<

$(B)/tpbench_blockcat: bench/src/blockcat.c | $(B)
	$(CC) $(TP_CFLAGS) -o $@ $<

$(B)/tpbench_drain: bench/src/drain.c | $(B)
	$(CC) $(TP_CFLAGS) -o $@ $<

$(B)/bclient: bench/src/bclient.c include/tp_pcp_compat.h | $(B)
	$(CC) $(TP_CFLAGS) -o $@ $< $(LIBPCP)

$(B)/encbench: bench/src/encbench.c bench/src/getpidshape.h $(B)/encode.o | $(B)
	$(CC) $(TP_CFLAGS) -o $@ $< $(B)/encode.o $(LIBPCP_PMDA)

# The same per-record work in bursts with idle between, and back to back (row 13).
$(B)/burstbench: bench/src/burstbench.c bench/src/benchutil.h bench/src/getpidshape.h $(B)/encode.o $(B)/agg.o $(B)/fields.o $(B)/comms.o $(B)/ksyms.o $(B)/valname.o | $(B)
	$(CC) $(TP_CFLAGS) -O2 -o $@ $< $(B)/encode.o $(B)/agg.o $(B)/fields.o $(B)/comms.o $(B)/ksyms.o $(B)/valname.o $(LIBPCP)

# The PMDA thread's fill of records from the ring, no kernel and no pmcd (row 3).
$(B)/fillbench: bench/src/fillbench.c bench/src/benchutil.h $(PURE_OBJ) | $(B)
	$(CC) $(TP_CFLAGS) -O2 -o $@ $< $(PURE_OBJ) $(LDLIBS_UNIT)

$(B)/aggbench: bench/src/aggbench.c $(B)/agg.o $(B)/fields.o $(B)/comms.o $(B)/ksyms.o $(B)/valname.o | $(B)
	$(CC) $(TP_CFLAGS) -O2 -o $@ $< $(B)/agg.o $(B)/fields.o $(B)/comms.o $(B)/ksyms.o $(B)/valname.o

RENDERBENCH_OBJ := $(addprefix $(B)/,render.o printfmt.o netaddr.o valname.o ksyms.o catalog.o util.o clock.o)
$(B)/renderbench: bench/src/renderbench.c $(RENDERBENCH_OBJ) | $(B)
	$(CC) $(TP_CFLAGS) -O2 -o $@ $< $(RENDERBENCH_OBJ) $(LDLIBS_UNIT)

# A client reading records: libpcp's unpacking against pcp tracepoint's in-place view.
$(B)/unpackbench: bench/src/unpackbench.c $(B)/client/unpack.o | $(B)
	$(CC) $(TP_CFLAGS) -O2 -Iclient -o $@ $< $(B)/client/unpack.o $(LIBPCP_PMDA)

# A client printing a line: client/output.c's default text line.
LINEBENCH_OBJ := $(addprefix $(B)/client/,output.o linefmt.o json.o params.o record.o util.o decl.o) $(B)/valname.o
$(B)/linebench: bench/src/linebench.c $(LINEBENCH_OBJ) | $(B)
	$(CC) $(TP_CFLAGS) -O2 -Iclient -o $@ $< $(LINEBENCH_OBJ) $(LIBPCP)

bench: bench-build
	@bench/run.sh $(B)
	@bench/archive.sh $(B)

# Row 10 alone: pmlogger at 1 s and 10 s against a 150 k/s stream.
bench-archive: bench-build
	@bench/archive.sh $(B)
