package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/rollsafe/rollsafe/sim"
)

// topicFlags collects repeated -topic NAME:PARTITIONS flags.
type topicFlags []string

func (t *topicFlags) String() string { return strings.Join(*t, ",") }

func (t *topicFlags) Set(v string) error {
	name, parts, ok := strings.Cut(v, ":")
	if !ok || name == "" {
		return fmt.Errorf("want NAME:PARTITIONS, got %q", v)
	}
	if n, err := strconv.Atoi(parts); err != nil || n < 1 {
		return fmt.Errorf("bad partition count in %q", v)
	}
	*t = append(*t, v)
	return nil
}

// runSim serves a simulated cluster until ctx ends. The first stdout line
// is the comma-separated bootstrap addresses.
func runSim(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rollsafe sim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	brokers := fs.Int("brokers", 3, "number of brokers")
	replication := fs.Int("replication", 0, "replication factor (default min(3, brokers))")
	listen := fs.String("listen", "127.0.0.1:0", "first broker's address; port 0 = ephemeral ports, port P = P, P+1, ...")
	seed := fs.Int64("seed", 1, "seed for the simulator's choices")
	verbose := fs.Bool("v", false, "log cluster events to stderr")
	var topics topicFlags
	fs.Var(&topics, "topic", "NAME:PARTITIONS to create (repeatable)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "rollsafe sim: unexpected arguments %q\n", fs.Args())
		return 2
	}
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	opts := []sim.Option{
		sim.Brokers(*brokers), sim.Listen(*listen), sim.Seed(*seed),
		sim.Logger(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))),
	}
	for _, t := range topics {
		name, parts, _ := strings.Cut(t, ":")
		n, _ := strconv.Atoi(parts)
		opts = append(opts, sim.Topic(name, int32(n), *replication))
	}
	c, err := sim.NewCluster(opts...)
	if err != nil {
		fmt.Fprintf(stderr, "rollsafe sim: %v\n", err)
		return 1
	}
	if _, err := fmt.Fprintln(stdout, strings.Join(c.Addrs(), ",")); err != nil {
		_ = c.Close()
		return 1
	}
	<-ctx.Done()
	if err := c.Close(); err != nil {
		fmt.Fprintf(stderr, "rollsafe sim: %v\n", err)
		return 1
	}
	return 0
}
