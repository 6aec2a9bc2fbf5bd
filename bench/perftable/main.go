// Command perftable regenerates the performance table: it builds bench's
// test binary, runs BenchmarkProduce's cells for every client in
// interleaved rounds (each round runs every cell, the runs of a cell back
// to back, their order rotated from round to round), and prints markdown
// tables of medians and ratios of medians.
//
// Run it from bench/:
//
//	go run ./perftable                 # 5 rounds, rollsafe, kgo and sarama, kfake and sim
//	go run ./perftable -rounds 3 -clients rollsafe,kgo -brokers kfake
//
// Each benchmark run is a fresh process with its own broker child, producing
// a fixed number of records (-scale multiplies them) so that every client
// of a cell does the same work. Unless -ceiling=false, every round also runs
// BenchmarkBrokerCeiling for each cell, interleaved with the clients: the
// rate at which the broker child takes the same records from a client that
// only writes pre-encoded requests, the most any client can reach there.
// Unless -floor=false, every round also runs BenchmarkCodecFloor beside the
// clients of each gzip cell: the CPU per record of the compressor alone on
// the cell's records, the least any client with that compressor can spend.
//
// -modes chooses what is measured of each client (all by default):
//
//	warm   BenchmarkProduce: a producer warmed up first (the first table)
//	cold   BenchmarkProduceCold: the same records from the client's
//	       creation, no warm-up
//	short  BenchmarkShortLived: create, 1,000 records, close; the time to
//	       the last acknowledgement and the CPU per lifecycle
//	first  BenchmarkFirstAck: create, one record; the time to its
//	       acknowledgement, per broker setup
//
// cold and short are the second table, beside the warm figures of the same
// cells (cold over warm needs warm); first is the third.
//
// See docs/performance.md (the current tables) in the repository.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	rounds := flag.Int("rounds", 5, "interleaved rounds")
	clients := flag.String("clients", "rollsafe,kgo,sarama", "clients, the first is compared with the others")
	brokers := flag.String("brokers", "kfake,sim", "broker kinds")
	scale := flag.Float64("scale", 1, "multiplies every cell's record count")
	bin := flag.String("bin", "", "bench test binary to use instead of building one (go test -c)")
	raw := flag.String("raw", "", "also append the raw benchmark lines to this file (benchstat input)")
	verbose := flag.Bool("v", false, "print each run's line to stderr")
	ceiling := flag.Bool("ceiling", true, "also run BenchmarkBrokerCeiling for every cell (the broker's rate from a client with no per-record work)")
	floor := flag.Bool("floor", true, "also run BenchmarkCodecFloor beside every gzip cell (the compressor's own CPU per record)")
	modes := flag.String("modes", strings.Join(allModes, ","), "what to measure of each client: warm (BenchmarkProduce), cold (BenchmarkProduceCold), short (BenchmarkShortLived), first (BenchmarkFirstAck)")
	shortOps := flag.Int("short.ops", 40, "lifecycles per BenchmarkShortLived run (-scale multiplies them)")
	firstOps := flag.Int("first.ops", 100, "lifecycles per BenchmarkFirstAck run (-scale multiplies them)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, config{
		rounds:   *rounds,
		clients:  strings.Split(*clients, ","),
		brokers:  strings.Split(*brokers, ","),
		scale:    *scale,
		bin:      *bin,
		raw:      *raw,
		verbose:  *verbose,
		ceiling:  *ceiling,
		floor:    *floor,
		modes:    strings.Split(*modes, ","),
		shortOps: *shortOps,
		firstOps: *firstOps,
	}, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "perftable:", err)
		os.Exit(1)
	}
}

type config struct {
	rounds             int
	clients, brokers   []string
	scale              float64
	bin, raw           string
	verbose            bool
	ceiling, floor     bool
	modes              []string
	shortOps, firstOps int
}

// The modes: what is measured of each client.
const (
	modeWarm  = "warm"
	modeCold  = "cold"
	modeShort = "short"
	modeFirst = "first"
)

var allModes = []string{modeWarm, modeCold, modeShort, modeFirst}

func (c config) has(mode string) bool { return slices.Contains(c.modes, mode) }

// scaled is n times -scale, at least least.
func (c config) scaled(n, least int) int { return max(int(float64(n)*c.scale), least) }

// ceilingClient names BenchmarkBrokerCeiling's runs among the clients.
const ceilingClient = "ceiling"

// floorClient names BenchmarkCodecFloor's runs among the clients.
const floorClient = "floor"

// hasFloor reports whether BenchmarkCodecFloor measures c's codec.
func hasFloor(c cell) bool { return c.codec == "gzip" }

func run(ctx context.Context, cfg config, out io.Writer) error {
	if cfg.rounds < 1 || len(cfg.clients) == 0 {
		return fmt.Errorf("need at least one round and one client")
	}
	bin := cfg.bin
	if bin == "" {
		dir, err := os.MkdirTemp("", "perftable")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "bench.test")
		build := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, ".")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building the bench test binary (run perftable from bench/): %w", err)
		}
	}
	var rawOut io.Writer = io.Discard
	if cfg.raw != "" {
		f, err := os.OpenFile(cfg.raw, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		rawOut = f
	}
	for _, m := range cfg.modes {
		if !slices.Contains(allModes, m) {
			return fmt.Errorf("unknown mode %q (have %v)", m, allModes)
		}
	}
	cs := selectCells(cfg.brokers)
	fs := selectFirstAck(cfg.brokers)
	res := newResults()
	loadStart := loadAvg()
	start := time.Now()
	for r := range cfg.rounds {
		var js []job
		for _, c := range cs {
			js = append(js, rotate(cellJobs(cfg, c), r)...)
		}
		if cfg.has(modeFirst) {
			for _, k := range fs {
				js = append(js, rotate(firstAckJobs(cfg, k), r)...)
			}
		}
		for _, j := range js {
			line, err := runOne(ctx, bin, j)
			if err != nil {
				return err
			}
			fmt.Fprintln(rawOut, line)
			if cfg.verbose {
				fmt.Fprintf(os.Stderr, "round %d: %s\n", r+1, line)
			}
			m, err := parseLine(line)
			if err != nil {
				return err
			}
			res.add(j.key, j.series, m)
		}
		fmt.Fprintf(os.Stderr, "perftable: round %d/%d done after %v, load %s\n", r+1, cfg.rounds, time.Since(start).Round(time.Second), loadAvg())
	}
	fmt.Fprintf(out, "%d interleaved rounds, %s, load average (1/5/15 min) %s at start, %s at end; %s.\n\n",
		cfg.rounds, time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadStart, loadAvg(), time.Since(start).Round(time.Second))
	if cfg.has(modeWarm) {
		writeTable(out, cs, cfg.clients, cfg.ceiling, cfg.floor, res)
	}
	if cfg.has(modeCold) || cfg.has(modeShort) {
		if cfg.has(modeWarm) {
			fmt.Fprintln(out)
		}
		writeStartTable(out, cs, cfg.clients, cfg.has(modeCold), cfg.has(modeShort), cfg.scaled(cfg.shortOps, 10), res)
	}
	if cfg.has(modeFirst) {
		fmt.Fprintln(out)
		writeFirstAckTable(out, fs, cfg.clients, cfg.scaled(cfg.firstOps, 10), res)
	}
	return nil
}

// job is one benchmark run: bench's sub-benchmark path sub (its parts
// matched exactly) for n iterations, its result kept under key and series.
type job struct {
	bench, sub  string
	n           int
	key, series string
}

// cellJobs are a cell's runs in one round, before rotation: every client
// warm, the ceiling, the floor (gzip), every client cold, every client
// short-lived, as cfg's modes and flags have them.
func cellJobs(cfg config, c cell) []job {
	n := cfg.scaled(c.records, 1000)
	k := c.key()
	sub := func(client string) string {
		return fmt.Sprintf("broker=%s/codec=%s/size=%s/client=%s", c.broker, c.codec, c.size, client)
	}
	var js []job
	if cfg.has(modeWarm) {
		for _, cl := range cfg.clients {
			js = append(js, job{"BenchmarkProduce", sub(cl), n, k, cl})
		}
		if cfg.ceiling {
			js = append(js, job{"BenchmarkBrokerCeiling", fmt.Sprintf("broker=%s/codec=%s/size=%s", c.broker, c.codec, c.size), n, k, ceilingClient})
		}
		if cfg.floor && hasFloor(c) {
			js = append(js, job{"BenchmarkCodecFloor", fmt.Sprintf("codec=%s/size=%s", c.codec, c.size), n, k, floorClient})
		}
	}
	if cfg.has(modeCold) {
		for _, cl := range cfg.clients {
			js = append(js, job{"BenchmarkProduceCold", sub(cl), n, k, coldSeries(cl)})
		}
	}
	if cfg.has(modeShort) {
		for _, cl := range cfg.clients {
			js = append(js, job{"BenchmarkShortLived", sub(cl), cfg.scaled(cfg.shortOps, 10), k, shortSeries(cl)})
		}
	}
	return js
}

// firstAckJobs are a BenchmarkFirstAck cluster's runs in one round.
func firstAckJobs(cfg config, broker string) []job {
	var js []job
	for _, cl := range cfg.clients {
		js = append(js, job{"BenchmarkFirstAck", fmt.Sprintf("broker=%s/client=%s", broker, cl), cfg.scaled(cfg.firstOps, 10), firstAckKey(broker), cl})
	}
	return js
}

// rotate is js rotated left by r: each round starts a cell's runs with a
// different one.
func rotate(js []job, r int) []job {
	if len(js) == 0 {
		return nil
	}
	r %= len(js)
	return append(slices.Clone(js[r:]), js[:r]...)
}

// pattern is j's -test.bench pattern: every part matched exactly.
func (j job) pattern() string {
	p := "^" + j.bench + "$"
	for part := range strings.SplitSeq(j.sub, "/") {
		p += "/^" + part + "$"
	}
	return p
}

// runOne runs one job and returns the benchmark's result line.
func runOne(ctx context.Context, bin string, j job) (string, error) {
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^$", "-test.bench", j.pattern(),
		"-test.benchtime", fmt.Sprintf("%dx", j.n), "-test.benchmem", "-test.count", "1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s/%s: %w\n%s%s", j.bench, j.sub, err, stdout.String(), stderr.String())
	}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, j.bench+"/") {
			return l, nil
		}
	}
	return "", fmt.Errorf("%s/%s: no benchmark line in:\n%s%s", j.bench, j.sub, stdout.String(), stderr.String())
}

// loadAvg is /proc/loadavg's three load averages, or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], "/")
}
