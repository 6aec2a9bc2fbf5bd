// Command perftable regenerates issue 14's performance table: it builds
// bench's test binary, runs BenchmarkProduce's cells for every client in
// interleaved rounds (each round runs every cell, the clients of a cell
// back to back, their order rotated from round to round), and prints a
// markdown table of medians and ratios of medians.
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
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, config{
		rounds:  *rounds,
		clients: strings.Split(*clients, ","),
		brokers: strings.Split(*brokers, ","),
		scale:   *scale,
		bin:     *bin,
		raw:     *raw,
		verbose: *verbose,
		ceiling: *ceiling,
		floor:   *floor,
	}, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "perftable:", err)
		os.Exit(1)
	}
}

type config struct {
	rounds           int
	clients, brokers []string
	scale            float64
	bin, raw         string
	verbose          bool
	ceiling, floor   bool
}

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
	cs := selectCells(cfg.brokers)
	order := cfg.clients
	if cfg.ceiling {
		order = append(slices.Clone(order), ceilingClient)
	}
	res := newResults()
	loadStart := loadAvg()
	start := time.Now()
	for r := range cfg.rounds {
		for _, c := range cs {
			n := max(int(float64(c.records)*cfg.scale), 1000)
			co := order
			if cfg.floor && hasFloor(c) {
				co = append(slices.Clone(order), floorClient)
			}
			for i := range co {
				cl := co[(i+r)%len(co)]
				line, err := runOne(ctx, bin, c, cl, n)
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
				res.add(c.key(), cl, m)
			}
		}
		fmt.Fprintf(os.Stderr, "perftable: round %d/%d done after %v, load %s\n", r+1, cfg.rounds, time.Since(start).Round(time.Second), loadAvg())
	}
	fmt.Fprintf(out, "%d interleaved rounds, %s, load average (1/5/15 min) %s at start, %s at end; %s.\n\n",
		cfg.rounds, time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadStart, loadAvg(), time.Since(start).Round(time.Second))
	writeTable(out, cs, cfg.clients, cfg.ceiling, cfg.floor, res)
	return nil
}

// runOne runs one client (or ceilingClient, floorClient) in one cell for n
// records and returns the benchmark's result line.
func runOne(ctx context.Context, bin string, c cell, client string, n int) (string, error) {
	pattern := fmt.Sprintf("^BenchmarkProduce$/^broker=%s$/^codec=%s$/^size=%s$/^client=%s$", c.broker, c.codec, c.size, client)
	prefix := "BenchmarkProduce/"
	if client == ceilingClient {
		pattern = fmt.Sprintf("^BenchmarkBrokerCeiling$/^broker=%s$/^codec=%s$/^size=%s$", c.broker, c.codec, c.size)
		prefix = "BenchmarkBrokerCeiling/"
	}
	if client == floorClient {
		pattern = fmt.Sprintf("^BenchmarkCodecFloor$/^codec=%s$/^size=%s$", c.codec, c.size)
		prefix = "BenchmarkCodecFloor/"
	}
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^$", "-test.bench", pattern,
		"-test.benchtime", fmt.Sprintf("%dx", n), "-test.benchmem", "-test.count", "1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w\n%s%s", c.key(), client, err, stdout.String(), stderr.String())
	}
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, prefix) {
			return l, nil
		}
	}
	return "", fmt.Errorf("%s %s: no benchmark line in:\n%s%s", c.key(), client, stdout.String(), stderr.String())
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
