//go:build !unix

package bench

import (
	"errors"
	"time"
)

// selfCPU is not measured outside unix; the benchmark reports 0.
func selfCPU() time.Duration { return 0 }

// sysCPU is not measured outside unix.
func sysCPU() time.Duration { return 0 }

// procCPU is not available outside Linux.
func procCPU(int) time.Duration { return -1 }

var errNoSignals = errors.New("bench: cannot pause a process on this OS")

func (bp *brokerProc) pause() error  { return errNoSignals }
func (bp *brokerProc) resume() error { return errNoSignals }

func peakRSS(bool) (hwm, rss int64) { return -1, -1 }
