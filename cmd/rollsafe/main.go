// Command rollsafe runs rollsafe's demo, produces records from stdin, and
// serves the in-process Kafka simulator.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = "usage: rollsafe demo|produce|sim [flags]"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	switch args[0] {
	case "sim":
		return runSim(ctx, args[1:], stdout, stderr)
	case "produce":
		return runProduce(ctx, args[1:], os.Stdin, stdout, stderr)
	case "demo":
		return runDemo(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprintln(stderr, usage)
	return 2
}
