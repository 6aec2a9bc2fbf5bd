// Command rollsafe runs rollsafe's demo, produces records from stdin, and
// serves the in-process Kafka simulator.
//
// See docs/cli.md (every command and flag) in the repository.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: rollsafe <command> [flags]

Commands:
  demo     produce to an embedded 3-broker cluster (-kafka: real local Kafka brokers) while a fault
           scenario plays, then read every record back
  produce  produce stdin's lines to a Kafka cluster, one record per line
  sim      serve the in-process Kafka simulator until interrupted
  help     print this help with every command's flags (rollsafe help <command>: one command's)

Run "rollsafe <command> -h" for one command's flags.`

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		// The first signal cancels the command's context; a second one
		// ends the process at once, after the command says what it
		// abandons.
		<-sigs
		cancel()
		os.Exit(abandon(os.Stderr, <-sigs))
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	cancel()
	os.Exit(code)
}

// commands runs each subcommand; help calls them with -h.
var commands = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) int{
	"demo": runDemo,
	"produce": func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		return runProduce(ctx, args, os.Stdin, stdout, stderr)
	},
	"sim": runSim,
}

// commandOrder is the order help lists the commands in.
var commandOrder = []string{"demo", "produce", "sim"}

// run dispatches a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		return help(ctx, args[1:], stdout, stderr)
	}
	if cmd, ok := commands[args[0]]; ok {
		return cmd(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "rollsafe: unknown command %q\n%s\n", args[0], usage)
	return 2
}

// help prints the usage and every command's flags (or only the named
// command's) on stdout.
func help(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	names := commandOrder
	if len(args) > 0 {
		if _, ok := commands[args[0]]; !ok || len(args) > 1 {
			fmt.Fprintf(stderr, "rollsafe help: unknown command %q\n%s\n", args[0], usage)
			return 2
		}
		names = args[:1]
	} else {
		fmt.Fprintln(stdout, usage)
	}
	for _, name := range names {
		fmt.Fprintf(stdout, "\nrollsafe %s:\n", name)
		commands[name](ctx, []string{"-h"}, stdout, stdout)
	}
	return 0
}
