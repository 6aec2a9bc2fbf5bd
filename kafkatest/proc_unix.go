//go:build unix && !linux

package kafkatest

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the child in its own process group (no parent-death
// signal outside Linux: Close must run).
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the process group led by pid.
func signalGroup(pid int, sig syscall.Signal) error { return syscall.Kill(-pid, sig) }
