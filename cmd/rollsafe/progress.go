package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// progressWidth is the widest a progress line gets: a terminal of 80
// columns shows it without wrapping.
const progressWidth = 80

// progress prints the demo's progress: on a terminal one line rewritten in
// place (\r) four times a second; otherwise (a file, a pipe, CI's log) a
// plain line every second.
type progress struct {
	out      io.Writer
	n        int
	begin    time.Time
	acked    *atomic.Int64
	current  func() string // the fault playing now
	terminal bool
	quit     chan struct{}
	wg       sync.WaitGroup
}

func newProgress(out io.Writer, n int, begin time.Time, acked *atomic.Int64, current func() string) *progress {
	return &progress{out: out, n: n, begin: begin, acked: acked, current: current, terminal: isTerminal(out), quit: make(chan struct{})}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (p *progress) start() {
	every := time.Second
	if p.terminal {
		every = 250 * time.Millisecond
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-t.C:
				p.print(time.Since(p.begin), false)
			}
		}
	}()
}

// stop ends the periodic lines and prints the last one.
func (p *progress) stop(elapsed time.Duration) {
	close(p.quit)
	p.wg.Wait()
	p.print(elapsed, true)
}

func (p *progress) print(elapsed time.Duration, final bool) {
	line := progressLine(p.acked.Load(), p.n, elapsed, p.current())
	switch {
	case p.terminal && final:
		fmt.Fprintf(p.out, "\r%-*s\n", progressWidth-1, line)
	case p.terminal:
		fmt.Fprintf(p.out, "\r%-*s", progressWidth-1, line)
	default:
		fmt.Fprintln(p.out, line)
	}
}

// progressLine is one progress line of at most progressWidth-1 columns.
func progressLine(acked int64, n int, elapsed time.Duration, fault string) string {
	rate := float64(acked) / max(elapsed.Seconds(), 1e-9)
	line := fmt.Sprintf("acked %d/%d %.0f rec/s fault: %s", acked, n, rate, fault)
	if r := []rune(line); len(r) > progressWidth-1 {
		line = string(r[:progressWidth-2]) + "…"
	}
	return strings.TrimRight(line, " ")
}
