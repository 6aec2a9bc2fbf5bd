package kafkatest

import (
	"os/exec"
	"runtime"
	"sync"
)

// Every child JVM is started from one OS thread that never exits: on Linux
// the parent-death signal fires when the thread that forked the child
// exits, not only the process, so forking from arbitrary Go threads could
// kill a broker when the runtime retires a thread.

type spawnReq struct {
	cmd  *exec.Cmd
	errc chan error
}

var (
	spawnOnce sync.Once
	spawnCh   chan spawnReq
)

// spawn starts cmd (already configured) from the spawner thread.
func spawn(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnCh = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread lives as long as the process
			for r := range spawnCh {
				r.errc <- r.cmd.Start()
			}
		}()
	})
	setProcAttr(cmd)
	errc := make(chan error, 1)
	spawnCh <- spawnReq{cmd, errc}
	return <-errc
}
