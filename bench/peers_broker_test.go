package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// brokerProc is a cluster running in a child process (see TestMain).
type brokerProc struct {
	spec   brokerSpec
	addrs  []string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *lockedBuffer
	done   chan struct{} // closed when the child has exited
	err    error         // the child's exit status, valid after done
	once   sync.Once
}

// lockedBuffer is a bytes.Buffer the child's stderr copier writes to while
// the parent may read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// brokerStartTimeout bounds how long a child broker may take to listen.
const brokerStartTimeout = 30 * time.Second

// startBrokerProc starts spec's cluster in a child process and waits for
// its addresses.
func startBrokerProc(spec brokerSpec) (*brokerProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), peersBrokerEnv+"="+spec.String())
	bp := &brokerProc{spec: spec, cmd: cmd, stderr: new(lockedBuffer), done: make(chan struct{})}
	cmd.Stderr = bp.stderr
	if bp.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lines := make(chan string, 1)
	go func() {
		// Read the address line, then drain until the child exits.
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- line
		_, _ = io.Copy(io.Discard, r)
		bp.err = cmd.Wait()
		close(bp.done)
	}()
	select {
	case line := <-lines:
		addrs, ok := strings.CutPrefix(strings.TrimSpace(line), "addrs ")
		if !ok || addrs == "" {
			bp.stop()
			return nil, fmt.Errorf("broker %s: no address line (got %q): %v; stderr: %s", spec, line, bp.err, bp.stderr)
		}
		bp.addrs = strings.Split(addrs, ",")
		return bp, nil
	case <-time.After(brokerStartTimeout):
		bp.stop()
		return nil, fmt.Errorf("broker %s: not listening after %v; stderr: %s", spec, brokerStartTimeout, bp.stderr)
	}
}

// pid is the child's process id.
func (bp *brokerProc) pid() int { return bp.cmd.Process.Pid }

// brokerStopTimeout bounds a child's clean exit after its stdin closes.
const brokerStopTimeout = 10 * time.Second

// stop closes the child's stdin, which makes it close its cluster and exit;
// a child that does not exit in time is killed. It returns the child's
// exit error, if any.
func (bp *brokerProc) stop() error {
	bp.once.Do(func() {
		_ = bp.resume() // a paused child could not exit
		_ = bp.stdin.Close()
		select {
		case <-bp.done:
		case <-time.After(brokerStopTimeout):
			_ = bp.cmd.Process.Kill()
			<-bp.done
			bp.err = errors.Join(bp.err, fmt.Errorf("broker %s: killed after %v", bp.spec, brokerStopTimeout))
		}
	})
	if bp.err != nil {
		return fmt.Errorf("broker %s: %w; stderr: %s", bp.spec, bp.err, bp.stderr)
	}
	return nil
}
