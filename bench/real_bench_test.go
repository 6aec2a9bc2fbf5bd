//go:build linux

package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/kafkatest"
	"github.com/rollsafe/rollsafe/protocol"
)

// BenchmarkRealThroughput measures rollsafe, kgo, sarama, Apache Kafka's
// Java producer and librdkafka (confluent-kafka from PyPI) producing to one
// real Apache Kafka broker (kafkatest, acks=all, idempotent, topic
// "peers" of 6 partitions, its log in memory and bounded): gzip 1 KB JSON
// events and uncompressed 100 B and 1 KB ones, the same fixture records in
// the same order for every client, keyed (murmur2 everywhere). Rounds are
// interleaved (every client of a cell back to back, the order rotating
// each round) and the table gives medians. Per run: a 20,000-record
// warm-up, flushed, then the timed records, flushed. CPU is the client
// process's user+system time over the timed part (getrusage; every client
// runs in a process of its own and measures it); the broker JVM's CPU is
// read from /proc. One op is one whole table: run it with -benchtime 1x.
//
//	cd bench && ROLLSAFE_THROUGHPUT_TABLE=/tmp/throughput.md go test -run '^$' -bench BenchmarkRealThroughput -benchtime 1x -timeout 60m
//
// ROLLSAFE_BENCH_ROUNDS sets the rounds (default 5); ROLLSAFE_THROUGHPUT_CLIENTS
// a subset of the clients (comma-separated, e.g. "rollsafe,kgo");
// ROLLSAFE_THROUGHPUT_CELLS other cells, as codec:size:records,... (size
// 100B or 1KB), e.g. "none:100B:3000000".
//
// Beside the warmed throughput, the table measures each producer from its
// start (a second table, startTable): cold, the cell's records from the
// producer's creation in a fresh process, no warm-up; short-lived, a
// process creating a producer, producing 1,000 records and closing it,
// 1 + ROLLSAFE_START_LIFECYCLES (20) times; first, the same with one
// record: the time to the first acknowledgement. ROLLSAFE_THROUGHPUT_MODES
// chooses among warm, cold, short and first (default all).
func BenchmarkRealThroughput(b *testing.B) {
	rounds := 5
	if v := os.Getenv("ROLLSAFE_BENCH_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("ROLLSAFE_BENCH_ROUNDS=%q", v)
		}
		rounds = n
	}
	cells := []throughputCell{
		{codec: compress.Gzip, size: fixture.Large, count: 200_000},
		{codec: compress.None, size: fixture.Small, count: 1_000_000},
		{codec: compress.None, size: fixture.Large, count: 400_000},
	}
	if v := os.Getenv("ROLLSAFE_THROUGHPUT_CELLS"); v != "" {
		var err error
		if cells, err = parseThroughputCells(v); err != nil {
			b.Fatal(err)
		}
	}
	lifecycles := 20
	if v := os.Getenv("ROLLSAFE_START_LIFECYCLES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("ROLLSAFE_START_LIFECYCLES=%q", v)
		}
		lifecycles = n
	}
	modes := "warm,cold,short,first"
	if v := os.Getenv("ROLLSAFE_THROUGHPUT_MODES"); v != "" {
		modes = v
	}
	m, err := parseStartModes(modes, lifecycles)
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		table := measureThroughput(b, rounds, 5*time.Second, cells, m)
		b.Log("\n" + table)
		if path := os.Getenv("ROLLSAFE_THROUGHPUT_TABLE"); path != "" {
			if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
				b.Error(err)
			}
		}
	}
}

// TestRealThroughputSmoke runs BenchmarkRealThroughput's clients once
// each, a few thousand records per cell, on its real broker: every client
// must put exactly its records in the log (the log's growth is checked
// after each run). It proves the benchmark's plumbing in CI; the figures
// come from the benchmark.
func TestRealThroughputSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Kafka broker and the Java and Python peers")
	}
	table := measureThroughput(t, 1, 0, []throughputCell{
		{codec: compress.Gzip, size: fixture.Large, count: 5_000},
		{codec: compress.None, size: fixture.Small, count: 20_000},
		{codec: compress.None, size: fixture.Large, count: 5_000},
	}, startModes{warm: true, cold: true, short: true, first: true, lifecycles: 2})
	t.Log("\n" + table)
}

// throughputClients are the clients of the real-broker throughput table.
// "ceiling" is BenchmarkBrokerCeiling's client (pre-encoded batches, no
// per-record work, not idempotent): the most the broker takes from a client
// on one connection on this machine; "ceiling-2conns" the same client on
// two connections, as rollsafe's default (client.ProduceConnections(2)),
// and "rollsafe-1conn" rollsafe on one, as the other clients: Kafka reads
// a connection's next request only after answering the last, so one
// connection bounds what any client's requests get through.
var throughputClients = []string{"rollsafe", "kgo", "sarama", "java", "librdkafka", "ceiling", "rollsafe-1conn", "ceiling-2conns"}

// measureThroughput runs every client over every cell for rounds
// interleaved rounds on a fresh one-broker cluster and returns the tables:
// the warmed throughput, and the producers from their start as modes
// has them. Each cell is first run untimed for at least warm (and twice).
func measureThroughput(tb testing.TB, rounds int, warm time.Duration, cells []throughputCell, modes startModes) string {
	tb.Helper()
	clients := throughputClients
	if v := os.Getenv("ROLLSAFE_THROUGHPUT_CLIENTS"); v != "" {
		clients = strings.Split(v, ",")
		for _, name := range clients {
			if !slices.Contains(throughputClients, name) {
				tb.Fatalf("ROLLSAFE_THROUGHPUT_CLIENTS: unknown client %q (have %v)", name, throughputClients)
			}
		}
	}
	for _, name := range clients {
		if err := throughputCheck(name); err != nil {
			requirePeer(tb, name, err)
		}
	}
	// Direct: the clients talk to the broker itself, not through the
	// fault proxy, which would copy every byte in this process (charging
	// its CPU to the Go clients) and bound the rate for all of them.
	cfg := kafkatest.Config{Brokers: 1, Direct: true, Dir: memDir(tb),
		// Segments past the topic's retention are deleted within seconds.
		Props: map[string]string{"log.retention.check.interval.ms": "2000", "log.initial.task.delay.ms": "1000"}}
	c := kafkatest.LaunchT(tb, cfg)
	ctx := context.Background()
	if err := checkAdvertised(ctx, c); err != nil {
		tb.Fatal(err)
	}
	if err := c.CreateTopic(ctx, kafkatest.Topic{Name: peersTopic, Partitions: peersPartitions, Replication: 1,
		Configs: throughputTopicConfigs}); err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	for i := range cells {
		cells[i].data = filepath.Join(dir, fmt.Sprintf("events-%d.bin", cells[i].size))
		if err := writeEvents(cells[i].data, eventRing(cells[i].size)); err != nil {
			tb.Fatal(err)
		}
	}
	// The first-ack lifecycles' one record: 100 B, uncompressed.
	firstCell := throughputCell{codec: compress.None, size: fixture.Small, count: 1,
		data: filepath.Join(dir, fmt.Sprintf("events-%d.bin", fixture.Small))}
	if err := writeEvents(firstCell.data, eventRing(firstCell.size)); err != nil {
		tb.Fatal(err)
	}
	// Untimed runs of each cell first, at least two and warm of them: the
	// broker's JVM compiles its hot paths during the first records it
	// receives, and whichever client went first would pay for it (after
	// a single 1.2 s warm-up run, the first timed run still cost the
	// broker 0.26-0.31 s of CPU per 100k none 1 KB records, the later
	// ones 0.17-0.22).
	for _, cell := range cells {
		start := time.Now()
		for n := 0; n < 2 || (time.Since(start) < warm && n < 20); n++ {
			if _, err := runThroughput(ctx, c, clients[0], cell); err != nil {
				tb.Fatalf("warm-up, %s: %v", cell, err)
			}
		}
	}
	runs := map[string][]throughputRun{}
	life := map[string][]lifeSummary{}
	// lifeRound runs one child of lifecycles and keeps its summary.
	lifeRound := func(round int, cell throughputCell, key, name string, lifecycles int) {
		s, err := runLife(ctx, c, name, cell, lifecycles)
		if err != nil {
			tb.Fatalf("round %d, %s %s %s: %v", round+1, cell, name, key, err)
		}
		line := fmt.Sprintf("round %d %s %-14s fresh: first ack %.2f ms, last ack %.2f ms, CPU %.2f ms", round+1, key, name,
			s.fresh.firstAck.Seconds()*1e3, s.fresh.lastAck.Seconds()*1e3, s.fresh.cpuAck.Seconds()*1e3)
		if s.later != nil {
			line += fmt.Sprintf("; later: first ack %.2f ms, last ack %.2f ms, CPU %.2f ms, close %.2f ms",
				s.later.firstAck.Seconds()*1e3, s.later.lastAck.Seconds()*1e3, s.later.cpuClose.Seconds()*1e3, s.later.close.Seconds()*1e3)
		}
		tb.Log(line)
		if _, ok := tb.(*testing.B); ok {
			fmt.Fprintln(os.Stderr, line)
		}
		life[key] = append(life[key], s)
	}
	for round := range rounds {
		for _, cell := range cells {
			order := append(clients[round%len(clients):], clients[:round%len(clients)]...)
			for _, name := range slices.Clip(order) {
				if startClient(name) && modes.cold {
					lifeRound(round, cell, startKey(cell.String(), name, "cold"), name, 1)
				}
				if startClient(name) && modes.short {
					short := cell
					short.count = shortLivedCount
					lifeRound(round, short, startKey(cell.String(), name, "short"), name, 1+modes.lifecycles)
				}
				if !modes.warm {
					continue
				}
				run, err := runThroughput(ctx, c, name, cell)
				if err != nil {
					tb.Fatalf("round %d, %s %s: %v", round+1, cell, name, err)
				}
				// On stderr as well: testing keeps only a benchmark's first lines of log.
				line := fmt.Sprintf("round %d %s %-14s %8.0f rec/s  %5.3f CPU s/100k (kernel %5.3f)  broker %5.3f  cores %4.2f  %6.0f rec/batch  %6.0f rec/req",
					round+1, cell, name, run.recPerSec(cell), run.cpuPer100k(cell), run.sysPer100k(cell), run.brokerPer100k(cell), run.cores(cell), run.perBatch(cell), run.perRequest(cell))
				tb.Log(line)
				if _, ok := tb.(*testing.B); ok {
					fmt.Fprintln(os.Stderr, line)
				}
				key := cell.String() + "/" + name
				runs[key] = append(runs[key], run)
			}
		}
		if modes.first {
			order := append(clients[round%len(clients):], clients[:round%len(clients)]...)
			for _, name := range slices.Clip(order) {
				if startClient(name) {
					lifeRound(round, firstCell, startKey("", name, "first"), name, 1+modes.lifecycles)
				}
			}
		}
	}
	var tables []string
	if modes.warm {
		tables = append(tables, throughputTable(cells, clients, runs, rounds))
	}
	if modes.cold || modes.short || modes.first {
		tables = append(tables, startTable(cells, clients, modes, runs, life, rounds))
	}
	return strings.Join(tables, "\n")
}

// runLife runs one child of lifecycles of client name, each producing the
// cell's count records, and checks, by the broker's high watermarks, that
// exactly their records were appended.
func runLife(ctx context.Context, c *kafkatest.Cluster, name string, cell throughputCell, lifecycles int) (lifeSummary, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	before, err := topicEnd(ctx, c.Addrs())
	if err != nil {
		return lifeSummary{}, err
	}
	var lr []lifeRun
	switch name {
	case "rollsafe", "kgo", "sarama", "rollsafe-1conn":
		lr, err = runGoLifeChild(ctx, c.Addrs(), name, cell, lifecycles)
	default:
		lr, err = runPeerLifeChild(ctx, c.Addrs(), name, cell, lifecycles)
	}
	if err != nil {
		return lifeSummary{}, err
	}
	after, err := topicEnd(ctx, c.Addrs())
	if err != nil {
		return lifeSummary{}, err
	}
	if got, want := after-before, int64(cell.count*lifecycles); got != want {
		return lifeSummary{}, fmt.Errorf("the log grew by %d records, want %d", got, want)
	}
	return summarizeLife(lr), nil
}

const throughputWarmup = 20_000

// throughputTopicConfigs bound the topic's log to about 2 GiB (6
// partitions of at most 256 MiB and an open 64 MiB segment): a full table
// writes some 25 GB, which memDir's memory could not hold.
var throughputTopicConfigs = map[string]string{
	"segment.bytes":        strconv.Itoa(64 << 20),
	"retention.bytes":      strconv.Itoa(256 << 20),
	"file.delete.delay.ms": "1000",
}

// memDir returns a new directory in memory (tmpfs /dev/shm, removed when tb
// ends) for the broker's files, or "" (kafkatest's temporary directory on
// disk) where there is none with 4 GiB free. With the log unbounded, on
// disk or in memory, the broker's CPU per record grew with the data
// written (0.17 to 0.55 s per 100k none 1 KB records within four rounds on
// this machine, every client's rate falling with it), so the order of the
// runs decided more than the clients did; with the log bounded by
// throughputTopicConfigs, in memory, it stays flat from round to round.
func memDir(tb testing.TB) string {
	const shm = "/dev/shm"
	var st syscall.Statfs_t
	if err := syscall.Statfs(shm, &st); err != nil || int64(st.Bavail)*st.Bsize < 4<<30 {
		return ""
	}
	dir, err := os.MkdirTemp(shm, "rollsafe-bench-")
	if err != nil {
		return ""
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// checkAdvertised checks that c's broker advertises its own listener (no
// proxy in between).
func checkAdvertised(ctx context.Context, c *kafkatest.Cluster) error {
	conn, err := protocol.Dial(ctx, c.Addrs()[0], protocol.ConnConfig{ClientID: "bench-check"})
	if err != nil {
		return err
	}
	defer conn.Close()
	resp, err := conn.Request(ctx, kmsg.NewPtrMetadataRequest())
	if err != nil {
		return err
	}
	for _, br := range resp.(*kmsg.MetadataResponse).Brokers {
		if got := net.JoinHostPort(br.Host, strconv.Itoa(int(br.Port))); got != c.DirectAddr(br.NodeID) {
			return fmt.Errorf("%w: broker %d advertises %s, not its listener %s", errProxied, br.NodeID, got, c.DirectAddr(br.NodeID))
		}
	}
	return nil
}

var errProxied = errors.New("bench: clients would go through the fault proxy")

// parseThroughputCells parses codec:size:records,... (size 100B or 1KB).
func parseThroughputCells(v string) ([]throughputCell, error) {
	var cells []throughputCell
	for _, spec := range strings.Split(v, ",") {
		f := strings.Split(spec, ":")
		if len(f) != 3 {
			return nil, fmt.Errorf("%w: %q is not codec:size:records", errBadCell, spec)
		}
		codec, err := compress.ParseCodec(f[0])
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %w", errBadCell, spec, err)
		}
		var size int
		switch f[1] {
		case sizeName(fixture.Small):
			size = fixture.Small
		case sizeName(fixture.Large):
			size = fixture.Large
		default:
			return nil, fmt.Errorf("%w: %q: size %q is not %s or %s", errBadCell, spec, f[1], sizeName(fixture.Small), sizeName(fixture.Large))
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%w: %q: records %q", errBadCell, spec, f[2])
		}
		cells = append(cells, throughputCell{codec: codec, size: size, count: n})
	}
	return cells, nil
}

var errBadCell = errors.New("bench: bad ROLLSAFE_THROUGHPUT_CELLS")

type throughputCell struct {
	codec compress.Codec
	size  int
	count int    // timed records per run
	data  string // the events, in the peers' file format
}

func (c throughputCell) String() string { return c.codec.String() + " " + sizeName(c.size) }

type throughputRun struct {
	elapsed time.Duration
	cpu     time.Duration
	sys     time.Duration // cpu's kernel part (Go clients; 0 for the others)
	batches int64         // acknowledged batches (Go clients; 0 for the others)
	// requests is the produce requests written (rollsafe and kgo, from
	// their hooks; 0 for the others).
	requests int64
	// brokerCPU is the broker JVM's CPU time over the whole run, warm-up
	// included (it cannot see where the client's timed part starts); -1
	// where /proc is not available.
	brokerCPU time.Duration
	// records and warmup: the timed and warm-up records, when they are not
	// exactly the cell's (the ceiling sends whole requests); 0 otherwise.
	records, warmup int64
}

// timed is the number of records the timed part produced.
func (r throughputRun) timed(c throughputCell) float64 {
	if r.records > 0 {
		return float64(r.records)
	}
	return float64(c.count)
}

// perBatch is records per acknowledged batch, or 0 if not counted.
func (r throughputRun) perBatch(c throughputCell) float64 {
	if r.batches == 0 {
		return 0
	}
	return r.timed(c) / float64(r.batches)
}

// all is the number of records the run produced, warm-up included.
func (r throughputRun) all(c throughputCell) int64 {
	if r.records > 0 {
		return r.warmup + r.records
	}
	return int64(throughputWarmup + c.count)
}

// brokerPer100k is the broker's CPU seconds per 100k records over the
// whole run, or -1 if not measured.
func (r throughputRun) brokerPer100k(c throughputCell) float64 {
	if r.brokerCPU < 0 {
		return -1
	}
	return r.brokerCPU.Seconds() * 100_000 / float64(r.all(c))
}

// cores is how many cores the client and the broker kept busy together
// at the timed part's rate: records per second times their CPU seconds
// per record (the broker's over the whole run), or -1.
func (r throughputRun) cores(c throughputCell) float64 {
	b := r.brokerPer100k(c)
	if b < 0 {
		return -1
	}
	return r.recPerSec(c) * (r.cpuPer100k(c) + b) / 100_000
}

// perRequest is records per produce request, or 0 if not counted.
func (r throughputRun) perRequest(c throughputCell) float64 {
	if r.requests == 0 {
		return 0
	}
	return r.timed(c) / float64(r.requests)
}

func (r throughputRun) recPerSec(c throughputCell) float64 {
	return r.timed(c) / r.elapsed.Seconds()
}

// sysPer100k is the kernel's part of cpuPer100k (0 where not measured).
func (r throughputRun) sysPer100k(c throughputCell) float64 {
	return r.sys.Seconds() * 100_000 / r.timed(c)
}

func (r throughputRun) cpuPer100k(c throughputCell) float64 {
	return r.cpu.Seconds() * 100_000 / r.timed(c)
}

func throughputCheck(name string) error {
	switch name {
	case "java":
		_, _, err := javaCmd()
		return err
	case "librdkafka":
		_, _, err := pythonCmd(false)
		return err
	}
	return nil
}

// writeEvents writes ring as the peers read it: 4-byte big-endian key
// length, key, 4-byte value length, value.
func writeEvents(path string, ring []fixture.Event) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	var n [4]byte
	for _, ev := range ring {
		binary.BigEndian.PutUint32(n[:], uint32(len(ev.Key)))
		w.Write(n[:])
		w.Write(ev.Key)
		binary.BigEndian.PutUint32(n[:], uint32(len(ev.Value)))
		w.Write(n[:])
		w.Write(ev.Value)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runThroughput runs one client once and checks, by the broker's high
// watermarks, that exactly warm-up + count records were appended.
func runThroughput(ctx context.Context, c *kafkatest.Cluster, name string, cell throughputCell) (throughputRun, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	before, err := topicEnd(ctx, c.Addrs())
	if err != nil {
		return throughputRun{}, err
	}
	pid, err := c.PID(0)
	if err != nil {
		return throughputRun{}, err
	}
	brk0 := procCPU(pid)
	var run throughputRun
	switch name {
	case "rollsafe", "kgo", "sarama", "rollsafe-1conn":
		run, err = runGoChildThroughput(ctx, c.Addrs(), name, cell)
	case "ceiling":
		run, err = runCeilingThroughput(ctx, c.Addrs(), 1, cell)
	case "ceiling-2conns":
		run, err = runCeilingThroughput(ctx, c.Addrs(), 2, cell)
	default:
		run, err = runChildThroughput(ctx, c.Addrs(), name, cell)
	}
	if err != nil {
		return run, err
	}
	run.brokerCPU = -1
	if brk1 := procCPU(pid); brk0 >= 0 && brk1 >= 0 {
		run.brokerCPU = brk1 - brk0
	}
	after, err := topicEnd(ctx, c.Addrs())
	if err != nil {
		return run, err
	}
	want := run.all(cell)
	if got := after - before; got != want {
		return run, fmt.Errorf("the log grew by %d records, want %d", got, want)
	}
	return run, nil
}

func runGoThroughput(ctx context.Context, addrs []string, name string, cell throughputCell) (throughputRun, error) {
	open, err := goOpener(name)
	if err != nil {
		return throughputRun{}, err
	}
	p, err := open(ctx, addrs, cell.codec, nil)
	if err != nil {
		return throughputRun{}, err
	}
	defer p.close()
	ring := eventRing(cell.size)
	for i := range throughputWarmup {
		p.produce(ctx, &ring[i%len(ring)])
	}
	if err := p.flush(ctx); err != nil {
		return throughputRun{}, err
	}
	bc, counts := p.(batchCounter) // sarama has no hook for it
	var b0, q0 int64
	if counts {
		b0, q0 = bc.batchesAcked(), bc.requestsSent()
	}
	c0, s0, t0 := selfCPU(), sysCPU(), time.Now()
	for i := range cell.count {
		p.produce(ctx, &ring[(throughputWarmup+i)%len(ring)])
	}
	err = p.flush(ctx)
	run := throughputRun{elapsed: time.Since(t0), cpu: selfCPU() - c0, sys: sysCPU() - s0}
	if counts {
		run.batches = bc.batchesAcked() - b0
		run.requests = bc.requestsSent() - q0
	}
	return run, err
}

// runCeilingThroughput runs BenchmarkBrokerCeiling's client: at least the
// cell's warm-up and timed records, in whole requests.
func runCeilingThroughput(ctx context.Context, addrs []string, lanes int, cell throughputCell) (throughputRun, error) {
	c, err := newCeiling(ctx, addrs, lanes, cell.codec, eventRing(cell.size))
	if err != nil {
		return throughputRun{}, err
	}
	defer c.close()
	warm, err := c.produce(ctx, throughputWarmup)
	if err != nil {
		return throughputRun{}, err
	}
	c0, t0 := selfCPU(), time.Now()
	n, err := c.produce(ctx, int64(cell.count))
	return throughputRun{elapsed: time.Since(t0), cpu: selfCPU() - c0, records: n, warmup: warm}, err
}

// runChildThroughput runs the Java or Python peer's bench mode and reads
// its "bench SECONDS CPU_SECONDS ACKED FAILED" line.
func runChildThroughput(ctx context.Context, addrs []string, name string, cell throughputCell) (throughputRun, error) {
	bin, args, props, err := peerCmd(name, cell.codec)
	if err != nil {
		return throughputRun{}, err
	}
	args = append(args, "bench", strings.Join(addrs, ","), peersTopic, cell.data,
		strconv.Itoa(cell.count), strconv.Itoa(throughputWarmup))
	cmd := exec.CommandContext(ctx, bin, append(args, props...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		return throughputRun{}, fmt.Errorf("%s: %w\n%s%s", name, err, out, stderr)
	}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) != 5 || f[0] != "bench" {
			continue
		}
		sec, _ := strconv.ParseFloat(f[1], 64)
		cpu, _ := strconv.ParseFloat(f[2], 64)
		acked, _ := strconv.Atoi(f[3])
		failed, _ := strconv.Atoi(f[4])
		if acked != cell.count || failed != 0 {
			return throughputRun{}, fmt.Errorf("%s: %d acknowledged and %d failed of %d:\n%s", name, acked, failed, cell.count, out)
		}
		return throughputRun{elapsed: time.Duration(sec * float64(time.Second)), cpu: time.Duration(cpu * float64(time.Second))}, nil
	}
	return throughputRun{}, fmt.Errorf("%s: no bench line in its output:\n%s", name, out)
}

// topicEnd is the sum of the high watermarks of peersTopic's partitions.
func topicEnd(ctx context.Context, addrs []string) (int64, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		return 0, err
	}
	defer cl.Close()
	req := kmsg.NewPtrListOffsetsRequest()
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = peersTopic
	for p := range int32(peersPartitions) {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp = p, -1
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = []kmsg.ListOffsetsRequestTopic{rt}
	shards := cl.RequestSharded(ctx, req)
	var sum int64
	for _, sh := range shards {
		if sh.Err != nil {
			return 0, sh.Err
		}
		for _, t := range sh.Resp.(*kmsg.ListOffsetsResponse).Topics {
			for _, p := range t.Partitions {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
					return 0, fmt.Errorf("list offsets %s[%d]: %w", t.Topic, p.Partition, err)
				}
				sum += p.Offset
			}
		}
	}
	return sum, nil
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// throughputTable renders the medians as docs/performance.md's table.
func throughputTable(cells []throughputCell, clients []string, runs map[string][]throughputRun, rounds int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| cell | client | rec/s (median of %d) | rec/s range | / kgo rec/s | (rounds min–max) | MB/s | CPU s per 100k records | of it kernel | / kgo CPU | broker CPU s per 100k | cores busy | rec/batch | rec/req |\n", rounds)
	b.WriteString("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, cell := range cells {
		ring := eventRing(cell.size)
		bytesPer := float64(payloadBytes(ring, len(ring))) / float64(len(ring))
		type med struct{ rps, cpu float64 }
		meds := map[string]med{}
		for _, name := range clients {
			var rps, cpu []float64
			for _, r := range runs[cell.String()+"/"+name] {
				rps = append(rps, r.recPerSec(cell))
				cpu = append(cpu, r.cpuPer100k(cell))
			}
			if len(rps) > 0 {
				meds[name] = med{median(rps), median(cpu)}
			}
		}
		kgo, haveKgo := meds["kgo"]
		for _, name := range clients {
			m, ok := meds[name]
			if !ok {
				continue
			}
			var rps, sys, brk, cores, perBatch, perReq []float64
			for _, r := range runs[cell.String()+"/"+name] {
				rps = append(rps, r.recPerSec(cell))
				if r.sys > 0 {
					sys = append(sys, r.sysPer100k(cell))
				}
				if v := r.brokerPer100k(cell); v >= 0 {
					brk = append(brk, v)
					cores = append(cores, r.cores(cell))
				}
				if v := r.perBatch(cell); v > 0 {
					perBatch = append(perBatch, v)
				}
				if v := r.perRequest(cell); v > 0 {
					perReq = append(perReq, v)
				}
			}
			vsKgo, roundsVsKgo, cpuVsKgo := "–", "–", "–"
			if haveKgo && name != "kgo" && kgo.rps > 0 && kgo.cpu > 0 {
				vsKgo = fmt.Sprintf("%.2f×", m.rps/kgo.rps)
				cpuVsKgo = fmt.Sprintf("%.2f×", m.cpu/kgo.cpu)
				// Each round's ratio: the two ran minutes apart at most.
				var ratios []float64
				for i, r := range runs[cell.String()+"/"+name] {
					if k := runs[cell.String()+"/kgo"]; i < len(k) {
						ratios = append(ratios, r.recPerSec(cell)/k[i].recPerSec(cell))
					}
				}
				if len(ratios) > 0 {
					roundsVsKgo = fmt.Sprintf("%.2f–%.2f", slices.Min(ratios), slices.Max(ratios))
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %.0fk | %.0fk-%.0fk | %s | %s | %.1f | %.3f | %s | %s | %s | %s | %s | %s |\n", cell, name,
				m.rps/1000, slices.Min(rps)/1000, slices.Max(rps)/1000, vsKgo, roundsVsKgo, m.rps*bytesPer/1e6,
				m.cpu, medianOrDash(sys, "%.3f"), cpuVsKgo, medianOrDash(brk, "%.3f"), medianOrDash(cores, "%.2f"), medianOrDash(perBatch, "%.0f"), medianOrDash(perReq, "%.0f"))
		}
	}
	b.WriteString("\nCPU: the client process's user+system time over the timed records, per 100k; of it kernel: the system part (Go clients, each run in a process of its own). Broker CPU: the broker JVM's (/proc, 10 ms ticks) over the whole run, warm-up included, per record produced. Cores busy: rec/s × (client + broker CPU per record), the share of the machine's cores the two kept busy at that rate. rec/batch and rec/req: records per acknowledged batch and per produce request written (the Go clients' hooks; sarama has none).\n")
	return b.String()
}

// medianOrDash formats the median of xs, or "–" if there is none.
func medianOrDash(xs []float64, format string) string {
	if len(xs) == 0 {
		return "–"
	}
	return fmt.Sprintf(format, median(xs))
}
