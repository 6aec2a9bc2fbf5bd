package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
)

// abandonReport is what a command prints when a second signal ends the
// process at once: set by the running command (produce), nil otherwise.
var abandonReport struct {
	mu     sync.Mutex
	report func(w io.Writer)
}

// setAbandonReport installs f (nil removes it).
func setAbandonReport(f func(w io.Writer)) {
	abandonReport.mu.Lock()
	defer abandonReport.mu.Unlock()
	abandonReport.report = f
}

// abandon prints the running command's report of what it abandons on w
// and returns the exit code for sig: 128 plus its number (130 for SIGINT,
// 143 for SIGTERM), as a shell reports a process the signal killed.
func abandon(w io.Writer, sig os.Signal) int {
	abandonReport.mu.Lock()
	f := abandonReport.report
	abandonReport.mu.Unlock()
	if f != nil {
		f(w)
	} else {
		fmt.Fprintln(w, "rollsafe: second signal: exiting at once")
	}
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}
