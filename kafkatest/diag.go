package kafkatest

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Diagnose describes, one line each, the machine (load, memory, free disk
// under the cluster's directory) and every node: its process and what
// the kernel says it is doing (running, sleeping, stopped, in disk wait,
// zombie), and whether each of its ports accepts a connection within a
// second. A test that fails with a node silent prints it before the logs:
// a hung JVM, a frozen one and a dead one look alike from a client.
func (c *Cluster) Diagnose() string {
	var b strings.Builder
	fmt.Fprintf(&b, "machine: load %s; %s; %s free under %s\n", firstLine("/proc/loadavg"),
		memAvailable(), freeDisk(c.cfg.Dir), c.cfg.Dir)
	for _, nd := range c.nodes {
		fmt.Fprintf(&b, "node %d: %s, paused %v, starts %d; controller :%d %s, internal :%d %s, client :%d %s\n",
			nd.id, nd.state(), nd.isPaused(), nd.startCount(),
			nd.controllerPort, accepts(nd.controllerPort), nd.internalPort, accepts(nd.internalPort),
			nd.externalPort, accepts(nd.externalPort))
	}
	if c.zk != nil {
		fmt.Fprintf(&b, "ZooKeeper: %s, starts %d; client :%d %s\n", c.zk.state(), c.zk.startCount(), c.zk.externalPort, accepts(c.zk.externalPort))
	}
	return b.String()
}

// state is the node's process and what the kernel says it is doing.
func (nd *node) state() string {
	cmd, exited := nd.proc()
	if cmd == nil {
		return "never started"
	}
	select {
	case <-exited:
		return fmt.Sprintf("exited (%v)", nd.exitErr())
	default:
		return fmt.Sprintf("pid %d, %s", cmd.Process.Pid, procState(cmd.Process.Pid))
	}
}

func (nd *node) startCount() int {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	return nd.starts
}

// accepts dials a loopback port for at most a second.
func accepts(port int) string {
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		return "refuses (" + err.Error() + ")"
	}
	_ = conn.Close()
	return "accepts"
}

// procState is the state letter of /proc/pid/stat with its meaning.
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "state unknown"
	}
	// pid (comm) S ...: comm may hold spaces, so split after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return "state unknown"
	}
	letter := s[i+2 : i+3]
	meaning := map[string]string{"R": "running", "S": "sleeping", "D": "in disk wait", "T": "stopped",
		"t": "stopped by a tracer", "Z": "zombie", "X": "dead"}[letter]
	return "state " + letter + " " + meaning
}

func firstLine(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
}

// memAvailable is /proc/meminfo's MemAvailable.
func memAvailable() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "memory unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			return "memory available " + strings.TrimSpace(v)
		}
	}
	return "memory unknown"
}

func freeDisk(dir string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return "disk unknown"
	}
	return fmt.Sprintf("%d MiB", st.Bavail*uint64(st.Bsize)>>20)
}
