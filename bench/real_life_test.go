package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
)

// The real-broker table's producers from their start: each run is a child
// process (a Go client's: this test binary re-executed with goLifeEnv set;
// the Java and Python peers' "life" mode) that runs lifecycles one after
// the other: create the producer, produce count records, wait for every
// outcome (a flush), close it. Each lifecycle prints one line,
//
//	life FIRST_ACK LAST_ACK CLOSE CPU_ACK CPU_CLOSE ACKED FAILED
//
// seconds from before the producer's creation to its first and last
// acknowledgement, Close's own time, and the process's CPU seconds from
// the same start to the last acknowledgement and to Close's return.
const goLifeEnv = "ROLLSAFE_LIFE_GO" // client|addr,addr|codec|size|records|lifecycles

// lifeRun is one lifecycle's figures.
type lifeRun struct {
	firstAck, lastAck, close time.Duration
	cpuAck, cpuClose         time.Duration
	acked, failed            int64
}

// String is the lifecycle's line.
func (r lifeRun) String() string {
	return fmt.Sprintf("life %.6f %.6f %.6f %.6f %.6f %d %d", r.firstAck.Seconds(), r.lastAck.Seconds(), r.close.Seconds(),
		r.cpuAck.Seconds(), r.cpuClose.Seconds(), r.acked, r.failed)
}

var errBadLifeLine = errors.New("bench: bad life line")

// parseLifeLines reads the life lines of a child's output, ignoring every
// other line.
func parseLifeLines(out string) ([]lifeRun, error) {
	var runs []lifeRun
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "life" {
			continue
		}
		if len(f) != 8 {
			return nil, fmt.Errorf("%w: %q", errBadLifeLine, line)
		}
		var secs [5]time.Duration
		for i := range secs {
			v, err := strconv.ParseFloat(f[1+i], 64)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("%w: %q", errBadLifeLine, line)
			}
			secs[i] = time.Duration(v * float64(time.Second))
		}
		acked, err1 := strconv.ParseInt(f[6], 10, 64)
		failed, err2 := strconv.ParseInt(f[7], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%w: %q", errBadLifeLine, line)
		}
		runs = append(runs, lifeRun{firstAck: secs[0], lastAck: secs[1], close: secs[2], cpuAck: secs[3], cpuClose: secs[4],
			acked: acked, failed: failed})
	}
	return runs, nil
}

// goLifeSpec is what a Go client's life child needs.
type goLifeSpec struct {
	goThroughputSpec     // cell.count is the records per lifecycle
	lifecycles       int // at least 1
}

func (s goLifeSpec) String() string {
	return s.goThroughputSpec.String() + "|" + strconv.Itoa(s.lifecycles)
}

func parseGoLifeSpec(v string) (goLifeSpec, error) {
	i := strings.LastIndexByte(v, '|')
	if i < 0 {
		return goLifeSpec{}, fmt.Errorf("%w: %q", errBadGoChild, v)
	}
	spec, err := parseGoThroughputSpec(v[:i])
	if err != nil {
		return goLifeSpec{}, err
	}
	n, err := strconv.Atoi(v[i+1:])
	if err != nil || n < 1 {
		return goLifeSpec{}, fmt.Errorf("%w: %q", errBadGoChild, v)
	}
	return goLifeSpec{goThroughputSpec: spec, lifecycles: n}, nil
}

// serveGoLife is the life child: its lifecycles, a life line each on
// stdout.
func serveGoLife(v string) error {
	spec, err := parseGoLifeSpec(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ring := eventRing(spec.cell.size)
	next := 0
	for range spec.lifecycles {
		run, err := goLifecycle(ctx, spec.addrs, spec.client, spec.cell.codec, ring, &next, spec.cell.count)
		if err != nil {
			return err
		}
		fmt.Println(run)
	}
	return nil
}

// goOpener opens the Go client name (as the real-broker table names them).
func goOpener(name string) (func(ctx context.Context, addrs []string, codec compress.Codec, ack ackFunc) (peerProducer, error), error) {
	switch name {
	case "rollsafe":
		return openRollsafe, nil
	case "kgo":
		return openKgo, nil
	case "sarama":
		return openSarama, nil
	case "rollsafe-1conn":
		return func(_ context.Context, addrs []string, codec compress.Codec, ack ackFunc) (peerProducer, error) {
			return newRollsafe(addrs, codec, ack, client.ProduceConnections(1))
		}, nil
	}
	return nil, fmt.Errorf("%w: no Go client %q", errBadGoChild, name)
}

// goLifecycle is one lifecycle of a Go client: n records of ring from
// *next on.
func goLifecycle(ctx context.Context, addrs []string, name string, codec compress.Codec, ring []fixture.Event, next *int, n int) (lifeRun, error) {
	open, err := goOpener(name)
	if err != nil {
		return lifeRun{}, err
	}
	var acked atomic.Int64
	var first atomic.Int64 // nanoseconds since t0 of the first acknowledgement, +1
	c0, t0 := selfCPU(), time.Now()
	p, err := open(ctx, addrs, codec, func(int32, int64) {
		if acked.Add(1) == 1 {
			first.Store(int64(time.Since(t0)) + 1)
		}
	})
	if err != nil {
		return lifeRun{}, err
	}
	for range n {
		p.produce(ctx, &ring[*next])
		*next = (*next + 1) % len(ring)
	}
	ferr := p.flush(ctx)
	run := lifeRun{lastAck: time.Since(t0), cpuAck: selfCPU() - c0}
	t1 := time.Now()
	cerr := p.close()
	run.close, run.cpuClose = time.Since(t1), selfCPU()-c0
	run.acked = acked.Load()
	run.failed = int64(n) - run.acked
	run.firstAck = run.lastAck
	if f := first.Load(); f > 0 {
		run.firstAck = time.Duration(f - 1)
	}
	return run, errors.Join(ferr, cerr)
}

// runGoLifeChild runs a Go client's lifecycles in a child process.
func runGoLifeChild(ctx context.Context, addrs []string, name string, cell throughputCell, lifecycles int) ([]lifeRun, error) {
	spec := goLifeSpec{goThroughputSpec: goThroughputSpec{client: name, addrs: addrs, cell: cell}, lifecycles: lifecycles}
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), goLifeEnv+"="+spec.String())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s%s", name, err, out, stderr.String())
	}
	return checkLifeRuns(name, string(out)+stderr.String(), string(out), cell.count, lifecycles)
}

// runPeerLifeChild runs the Java or Python peer's life mode.
func runPeerLifeChild(ctx context.Context, addrs []string, name string, cell throughputCell, lifecycles int) ([]lifeRun, error) {
	bin, args, props, err := peerCmd(name, cell.codec)
	if err != nil {
		return nil, err
	}
	args = append(args, "life", strings.Join(addrs, ","), peersTopic, cell.data, strconv.Itoa(cell.count), strconv.Itoa(lifecycles))
	cmd := exec.CommandContext(ctx, bin, append(args, props...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s%s", name, err, out, stderr.String())
	}
	return checkLifeRuns(name, string(out)+stderr.String(), string(out), cell.count, lifecycles)
}

// peerCmd is the command running the Java ("java") or Python
// ("librdkafka", or "librdkafka-debian": Debian's binding) peer and the
// producer properties that set codec.
func peerCmd(name string, codec compress.Codec) (bin string, args, props []string, err error) {
	switch name {
	case "java":
		bin, args, err = javaCmd()
		props = []string{"compression.type=" + codec.String()}
	case "librdkafka", "librdkafka-debian":
		bin, args, err = pythonCmd(name == "librdkafka-debian")
		props = []string{"compression.codec=" + codec.String(), "partitioner=murmur2_random"}
	default:
		err = fmt.Errorf("bench: no peer program %q", name)
	}
	return bin, args, props, err
}

// checkLifeRuns parses a life child's output: as many lifecycles as asked
// for, each with every record acknowledged.
func checkLifeRuns(name, all, out string, count, lifecycles int) ([]lifeRun, error) {
	runs, err := parseLifeLines(out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", name, err, all)
	}
	if len(runs) != lifecycles {
		return nil, fmt.Errorf("%s: %d lifecycles reported, want %d:\n%s", name, len(runs), lifecycles, all)
	}
	for i, r := range runs {
		if r.acked != int64(count) || r.failed != 0 {
			return nil, fmt.Errorf("%s: lifecycle %d: %d acknowledged and %d failed of %d:\n%s", name, i+1, r.acked, r.failed, count, all)
		}
	}
	return runs, nil
}

// lifeSummary is one child run of lifecycles: its first lifecycle (in a
// fresh process: a JVM's classes loaded and its code interpreted, a
// library's first handle) and the mean of the later ones (nil if none).
type lifeSummary struct {
	fresh lifeRun
	later *lifeRun
}

func summarizeLife(runs []lifeRun) lifeSummary {
	s := lifeSummary{fresh: runs[0]}
	if rest := runs[1:]; len(rest) > 0 {
		var m lifeRun
		for _, r := range rest {
			m.firstAck += r.firstAck
			m.lastAck += r.lastAck
			m.close += r.close
			m.cpuAck += r.cpuAck
			m.cpuClose += r.cpuClose
			m.acked += r.acked
			m.failed += r.failed
		}
		n := time.Duration(len(rest))
		m.firstAck, m.lastAck, m.close, m.cpuAck, m.cpuClose = m.firstAck/n, m.lastAck/n, m.close/n, m.cpuAck/n, m.cpuClose/n
		s.later = &m
	}
	return s
}

// startModes are what the real-broker table measures of each client: its
// warmed throughput (warm, the throughput table), and from the producer's
// start: cold, each cell's records from the producer's creation in a fresh
// process; short, lifecycles of shortLivedCount records; first,
// lifecycles of one record. short and first run 1+lifecycles lifecycles in
// one process: the first in a fresh process, then lifecycles more, their
// mean.
type startModes struct {
	warm, cold, short, first bool
	lifecycles               int
}

// shortLivedCount is the records of a short-lived lifecycle.
const shortLivedCount = 1000

var errBadModes = errors.New("bench: bad ROLLSAFE_THROUGHPUT_MODES")

// parseStartModes parses a comma-separated list of warm, cold, short and
// first.
func parseStartModes(v string, lifecycles int) (startModes, error) {
	m := startModes{lifecycles: lifecycles}
	for mode := range strings.SplitSeq(v, ",") {
		switch mode {
		case "warm":
			m.warm = true
		case "cold":
			m.cold = true
		case "short":
			m.short = true
		case "first":
			m.first = true
		default:
			return startModes{}, fmt.Errorf("%w: %q (warm, cold, short, first)", errBadModes, mode)
		}
	}
	if lifecycles < 1 {
		return startModes{}, fmt.Errorf("%w: %d lifecycles", errBadModes, lifecycles)
	}
	return m, nil
}

// startClient reports whether the start modes measure client name: the
// producers, not the ceilings.
func startClient(name string) bool { return !strings.HasPrefix(name, "ceiling") }

// startKey is the key of a client's runs of a mode in a cell ("" for
// first, which has no cell).
func startKey(cell, name, mode string) string { return cell + "/" + name + "/" + mode }

// medianOf is the median of f over runs, or -1 if there are none.
func medianOf[T any](runs []T, f func(T) float64) float64 {
	if len(runs) == 0 {
		return -1
	}
	var xs []float64
	for _, r := range runs {
		xs = append(xs, f(r))
	}
	return median(xs)
}

// timesOver is a over b as "1.23×", or "–".
func timesOver(a, b float64) string {
	if a < 0 || b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// msOrDash is seconds as milliseconds, or "–" for -1.
func msOrDash(sec float64) string {
	if sec < 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", sec*1e3)
}

func laterOf(f func(lifeRun) float64) func(lifeSummary) float64 {
	return func(s lifeSummary) float64 {
		if s.later == nil {
			return -1
		}
		return f(*s.later)
	}
}

func freshOf(f func(lifeRun) float64) func(lifeSummary) float64 {
	return func(s lifeSummary) float64 { return f(s.fresh) }
}

func lastAckSec(r lifeRun) float64  { return r.lastAck.Seconds() }
func firstAckSec(r lifeRun) float64 { return r.firstAck.Seconds() }
func cpuCloseSec(r lifeRun) float64 { return r.cpuClose.Seconds() }
func closeSec(r lifeRun) float64    { return r.close.Seconds() }

// startTable renders the producers from their start: per cell and client,
// cold against the same client warmed and against kgo cold, and the
// short-lived lifecycles; then the time to the first acknowledgement per
// client. Figures are medians over the rounds.
func startTable(cells []throughputCell, clients []string, m startModes, warm map[string][]throughputRun, life map[string][]lifeSummary, rounds int) string {
	var b strings.Builder
	if m.cold || m.short {
		fmt.Fprintf(&b, "| cell | client | cold rec/s (median of %d) | cold / warm rec/s | cold CPU s per 100k | cold / warm CPU | cold / kgo rec/s | cold / kgo CPU | short-lived ms to last ack, fresh process | short-lived ms to last ack, later (mean of %d) | / kgo | short-lived CPU ms, later | / kgo | Close ms, later |\n", rounds, m.lifecycles)
		b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, cell := range cells {
			c := cell.String()
			coldRPS := func(name string) float64 {
				return medianOf(life[startKey(c, name, "cold")], freshOf(func(r lifeRun) float64 { return float64(cell.count) / r.lastAck.Seconds() }))
			}
			coldCPU := func(name string) float64 {
				return medianOf(life[startKey(c, name, "cold")], freshOf(func(r lifeRun) float64 { return r.cpuAck.Seconds() * 100_000 / float64(cell.count) }))
			}
			short := func(name string, f func(lifeSummary) float64) float64 {
				return medianOf(life[startKey(c, name, "short")], f)
			}
			for _, name := range clients {
				if !startClient(name) {
					continue
				}
				warmRuns := warm[c+"/"+name]
				warmRPS := medianOf(warmRuns, func(r throughputRun) float64 { return r.recPerSec(cell) })
				warmCPU := medianOf(warmRuns, func(r throughputRun) float64 { return r.cpuPer100k(cell) })
				rps, cpu := coldRPS(name), coldCPU(name)
				rpsCol, cpuCol := "–", "–"
				if rps >= 0 {
					rpsCol, cpuCol = fmt.Sprintf("%.0fk", rps/1000), fmt.Sprintf("%.3f", cpu)
				}
				vsKgo := func(a, k float64) string {
					if name == "kgo" {
						return "–"
					}
					return timesOver(a, k)
				}
				later := short(name, laterOf(lastAckSec))
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c, name,
					rpsCol, timesOver(rps, warmRPS), cpuCol, timesOver(cpu, warmCPU), vsKgo(rps, coldRPS("kgo")), vsKgo(cpu, coldCPU("kgo")),
					msOrDash(short(name, freshOf(lastAckSec))), msOrDash(later), vsKgo(later, short("kgo", laterOf(lastAckSec))),
					msOrDash(short(name, laterOf(cpuCloseSec))), vsKgo(short(name, laterOf(cpuCloseSec)), short("kgo", laterOf(cpuCloseSec))),
					msOrDash(short(name, laterOf(closeSec))))
			}
		}
		fmt.Fprintf(&b, "\nCold: the cell's records produced by a producer created in a fresh process, timed from before its creation to the last acknowledgement (CPU: the process's over the same span); cold / warm is over the throughput table's figures of the same client and cell. Short-lived: one process creates a producer, produces %d of the cell's records, waits for every outcome (a flush) and closes it, %d times: the first lifecycle in the fresh process, then the mean of the %d later ones; ms to last ack from before the producer's creation; CPU the process's per lifecycle, Close included.\n", shortLivedCount, m.lifecycles+1, m.lifecycles)
	}
	if m.first {
		if m.cold || m.short {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "| client | ms to first ack, fresh process (median of %d) | ms to first ack, later (mean of %d) | / kgo | CPU ms per lifecycle, later | / kgo | Close ms, later |\n", rounds, m.lifecycles)
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|\n")
		first := func(name string, f func(lifeSummary) float64) float64 {
			return medianOf(life[startKey("", name, "first")], f)
		}
		for _, name := range clients {
			if !startClient(name) {
				continue
			}
			vsKgo := func(f func(lifeSummary) float64) string {
				if name == "kgo" {
					return "–"
				}
				return timesOver(first(name, f), first("kgo", f))
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", name, msOrDash(first(name, freshOf(firstAckSec))),
				msOrDash(first(name, laterOf(firstAckSec))), vsKgo(laterOf(firstAckSec)),
				msOrDash(first(name, laterOf(cpuCloseSec))), vsKgo(laterOf(cpuCloseSec)), msOrDash(first(name, laterOf(closeSec))))
		}
		fmt.Fprintf(&b, "\nFirst ack: one process creates a producer, produces one 100 B record (uncompressed), waits for its outcome (a flush) and closes it, %d times; ms from before the producer's creation to the acknowledgement (connections, metadata, producer id, the produce request), the first lifecycle in the fresh process and the mean of the later ones.\n", m.lifecycles+1)
	}
	return b.String()
}
