//go:build unix

package bench

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// selfCPU is the CPU time (user + system, all threads) this process has
// used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sysCPU is the part of selfCPU spent in the kernel (system calls: for a
// producer mostly the socket writes, which on loopback also carry the
// receiving side's TCP processing).
func sysCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Stime.Nano())
}

// pause stops the broker child (SIGSTOP): a broker that stalls, holding
// its connections open and answering nothing, until resume.
func (bp *brokerProc) pause() error { return bp.cmd.Process.Signal(syscall.SIGSTOP) }

// resume lets a paused broker child run again (SIGCONT).
func (bp *brokerProc) resume() error { return bp.cmd.Process.Signal(syscall.SIGCONT) }

// peakRSS resets this process's peak RSS (VmHWM) to its current RSS when
// reset, and returns VmHWM and VmRSS in bytes (Linux; -1 elsewhere).
func peakRSS(reset bool) (hwm, rss int64) {
	if reset {
		_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1, -1
	}
	hwm, rss = -1, -1
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok || (k != "VmHWM" && k != "VmRSS") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			continue
		}
		if k == "VmHWM" {
			hwm = n << 10
		} else {
			rss = n << 10
		}
	}
	return hwm, rss
}

// clockTick is USER_HZ, the unit of /proc/<pid>/stat's CPU times on Linux
// (100 on every architecture Go supports).
const clockTick = 10 * time.Millisecond

// procCPU is the CPU time (user + system) process pid has used so far, from
// /proc/<pid>/stat, or -1 where that is not available (not Linux).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	// The command name (field 2) may hold spaces; fields after it are
	// space-separated: state is field 3, utime 14, stime 15.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return -1
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return time.Duration(ut+st) * clockTick
}
