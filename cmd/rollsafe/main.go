// Command rollsafe runs rollsafe's demo, produces records from stdin, and
// serves the in-process Kafka simulator.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "usage: rollsafe demo|produce|sim [flags]")
	os.Exit(2)
}
