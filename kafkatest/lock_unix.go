//go:build unix

package kafkatest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// machineLock serialises clusters across processes on one machine: `go
// test ./...` runs packages in parallel, and two 3-JVM clusters on a small
// machine would each slow the other past its timeouts.
type machineLock struct{ f *os.File }

// LockPath is the file every Launch locks while its cluster runs. It is
// in /tmp, not os.TempDir(): processes with different TMPDIRs share the
// machine's cores all the same (two runs with their own TMPDIR once ran
// two 3-JVM clusters at once, each slowing the other past its timeouts).
func LockPath() string { return filepath.Join("/tmp", "rollsafe-kafkatest.lock") }

// acquireLock waits for the machine lock until ctx ends, saying so through
// logf once if it has to wait.
func acquireLock(ctx context.Context, logf func(string, ...any)) (*machineLock, error) {
	f, err := os.OpenFile(LockPath(), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("kafkatest: lock: %w", err)
	}
	said := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &machineLock{f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			_ = f.Close()
			return nil, fmt.Errorf("kafkatest: lock %s: %w", LockPath(), err)
		}
		if !said {
			logf("kafkatest: waiting for another kafkatest cluster on this machine to end (lock %s)", LockPath())
			said = true
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("kafkatest: waiting for lock %s: %w", LockPath(), ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (l *machineLock) release() {
	if l != nil {
		_ = l.f.Close() // closing the descriptor drops the flock
	}
}
