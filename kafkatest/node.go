package kafkatest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/rollsafe/rollsafe/protocol"
)

// node is one broker JVM (a broker+controller in KRaft mode) and its
// files, or a ZooKeeper-mode cluster's ZooKeeper (id -1, zookeeper.go).
type node struct {
	id                                         int32
	dir                                        string
	internalPort, externalPort, controllerPort int
	proxy                                      *Proxy
	extra                                      []extraListener // Config.Listeners, in order
	javaArgs                                   []string
	main                                       []string // main class and its arguments
	cdsArgs                                    []string // class-data sharing flags (cds.go), under mu

	mu      sync.Mutex
	cmd     *exec.Cmd
	exited  chan struct{} // closed when cmd has been waited for
	waitErr error
	paused  bool
	starts  int
}

func (nd *node) dataDir() string   { return filepath.Join(nd.dir, "data") }
func (nd *node) propsPath() string { return filepath.Join(nd.dir, "server.properties") }
func (nd *node) logPath() string   { return filepath.Join(nd.dir, "server.log") }

// name is "node <id>", or "ZooKeeper".
func (nd *node) name() string {
	if nd.id == zooKeeperID {
		return "ZooKeeper"
	}
	return fmt.Sprintf("node %d", nd.id)
}

// writeConfig writes server.properties and the log4j2 config and fixes the
// JVM command line. quorum is the KRaft voters, or in ZooKeeper mode the
// zookeeper.connect string.
func (nd *node) writeConfig(cfg Config, quorum, keystore string) error {
	if err := os.MkdirAll(nd.dir, 0o755); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	if err := os.WriteFile(nd.propsPath(), []byte(nodeProps(cfg, nd, quorum, keystore)), 0o644); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	log4j := filepath.Join(nd.dir, "log4j2.properties")
	if err := os.WriteFile(log4j, []byte(log4jConfig), 0o644); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	nd.javaArgs = []string{
		"-Xmx" + strconv.Itoa(cfg.HeapMB) + "m", "-Xms64m",
		"-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-XX:+ExitOnOutOfMemoryError",
		"-XX:-UsePerfData", "-Xss512k", "-Djava.awt.headless=true",
		"-Dlog4j2.configurationFile=" + log4j,
		"-cp", cfg.Runtime.Classpath(),
	}
	nd.main = []string{"kafka.Kafka", nd.propsPath()}
	return nil
}

// format runs Kafka's storage tool for the node (one cluster id for all).
func (nd *node) format(ctx context.Context, cfg Config, clusterID string) error {
	// A short-lived JVM: no optimising JIT, the simplest GC.
	args := []string{"-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData",
		"-Dlog4j2.configurationFile=" + filepath.Join(nd.dir, "log4j2.properties"), "-cp", cfg.Runtime.Classpath(),
		// "--cluster-id=ID" in one argument: a random id may start with "-".
		"kafka.tools.StorageTool", "format", "--cluster-id=" + clusterID, "--config", nd.propsPath(), "--ignore-formatted"}
	args = append(args, scramFormatArgs(cfg)...)
	cmd := exec.CommandContext(ctx, cfg.Runtime.Java, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := spawn(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		return fmt.Errorf("kafkatest: format node %d: %w\n%s", nd.id, err, out.String())
	}
	return nil
}

// launch starts the JVM; its stdout and stderr append to the log file.
func (nd *node) launch(cfg Config) error {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	if nd.cmd != nil {
		select {
		case <-nd.exited:
		default:
			return fmt.Errorf("kafkatest: %s is already running", nd.name())
		}
	}
	f, err := os.OpenFile(nd.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	nd.starts++
	fmt.Fprintf(f, "==== kafkatest: start #%d of %s at %s ====\n", nd.starts, nd.name(), time.Now().Format(time.RFC3339Nano))
	args := append(append(append([]string{}, nd.javaArgs...), nd.cdsArgs...), nd.main...)
	cmd := exec.Command(cfg.Runtime.Java, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Dir = nd.dir
	if err := spawn(cmd); err != nil {
		_ = f.Close()
		return fmt.Errorf("kafkatest: start %s: %w", nd.name(), err)
	}
	exited := make(chan struct{})
	nd.cmd, nd.exited, nd.paused, nd.waitErr = cmd, exited, false, nil
	go func() {
		err := cmd.Wait()
		_ = f.Close()
		nd.mu.Lock()
		nd.waitErr = err
		nd.mu.Unlock()
		close(exited)
	}()
	return nil
}

// setCDSArgs sets the class-data sharing flags of the node's next starts.
func (nd *node) setCDSArgs(args ...string) {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	nd.cdsArgs = args
}

// proc returns the current process and its exit channel (nil if never started).
func (nd *node) proc() (*exec.Cmd, chan struct{}) {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	return nd.cmd, nd.exited
}

func (nd *node) running() bool {
	cmd, exited := nd.proc()
	if cmd == nil {
		return false
	}
	select {
	case <-exited:
		return false
	default:
		return true
	}
}

func (nd *node) isPaused() bool {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	return nd.paused
}

// signal sends sig to the node's process group if it runs.
func (nd *node) signal(sig syscall.Signal) error {
	cmd, exited := nd.proc()
	if cmd == nil {
		return fmt.Errorf("kafkatest: %s was never started", nd.name())
	}
	select {
	case <-exited:
		return fmt.Errorf("kafkatest: %s is not running", nd.name())
	default:
	}
	if err := signalGroup(cmd.Process.Pid, sig); err != nil {
		return fmt.Errorf("kafkatest: signal %v to %s: %w", sig, nd.name(), err)
	}
	return nil
}

func (nd *node) stop(ctx context.Context) error {
	if nd.isPaused() {
		if err := nd.resume(); err != nil {
			return err
		}
	}
	if err := nd.signal(syscall.SIGTERM); err != nil {
		return err
	}
	_, exited := nd.proc()
	select {
	case <-exited:
		return nil
	case <-ctx.Done():
		_ = nd.kill()
		return fmt.Errorf("kafkatest: node %d did not finish its controlled shutdown: %w", nd.id, ctx.Err())
	}
}

// kill SIGKILLs the node if it runs and waits for it to be reaped.
func (nd *node) kill() error {
	cmd, exited := nd.proc()
	if cmd == nil {
		return nil
	}
	select {
	case <-exited:
		return nil
	default:
	}
	_ = signalGroup(cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		return fmt.Errorf("kafkatest: %s (pid %d) did not exit after SIGKILL", nd.name(), cmd.Process.Pid)
	}
	nd.mu.Lock()
	nd.paused = false
	nd.mu.Unlock()
	return nil
}

func (nd *node) pause() error {
	if err := nd.signal(syscall.SIGSTOP); err != nil {
		return err
	}
	nd.mu.Lock()
	nd.paused = true
	nd.mu.Unlock()
	return nil
}

func (nd *node) resume() error {
	if err := nd.signal(syscall.SIGCONT); err != nil {
		return err
	}
	nd.mu.Lock()
	nd.paused = false
	nd.mu.Unlock()
	return nil
}

// startNode launches nd and waits until it serves and metadata from it
// lists it among the live brokers. In ZooKeeper mode it first waits (at
// most a minute: the 18 s session and then some) for the registration of
// the node's last run to go (see awaitRegistrationGone).
func (c *Cluster) startNode(ctx context.Context, nd *node) error {
	if c.zk != nil {
		rctx, cancel := context.WithTimeout(ctx, time.Minute)
		err := c.awaitRegistrationGone(rctx, nd.id)
		cancel()
		if err != nil {
			return err
		}
	}
	if err := nd.launch(c.cfg); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.StartTimeout)
	defer cancel()
	_, exited := nd.proc()
	addr := c.DirectAddr(nd.id)
	var last error
	for {
		last = nd.registered(ctx, addr)
		if last == nil {
			return nil
		}
		select {
		case <-exited:
			err := fmt.Errorf("kafkatest: node %d exited while starting (%v); log tail:\n%s", nd.id, nd.exitErr(), tail(nd.logPath(), 40))
			if nd.portTaken() {
				err = fmt.Errorf("%w: %w", errPortTaken, err)
			}
			return err
		case <-ctx.Done():
			_ = nd.kill()
			return fmt.Errorf("kafkatest: node %d not serving after %v (%v): %w; log tail:\n%s", nd.id, c.cfg.StartTimeout, last, ctx.Err(), tail(nd.logPath(), 40))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// errPortTaken: a node could not bind one of its ports, which another
// process took between freePorts releasing it and the JVM binding it.
var errPortTaken = errors.New("kafkatest: a port was taken before its node bound it")

// portTaken reports whether the node's log says a listener could not bind
// its port because it was in use.
func (nd *node) portTaken() bool {
	b, err := os.ReadFile(nd.logPath())
	return err == nil && bytes.Contains(b, []byte("java.net.BindException: Address already in use"))
}

func (nd *node) exitErr() error {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	return nd.waitErr
}

// registered asks the node itself for metadata and checks that it lists
// itself as a live broker.
func (nd *node) registered(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := protocol.Dial(ctx, addr, protocol.ConnConfig{ClientID: "kafkatest", DialTimeout: 2 * time.Second})
	if err != nil {
		return err
	}
	defer conn.Close()
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	resp, err := conn.Request(ctx, req)
	if err != nil {
		return err
	}
	for _, b := range resp.(*kmsg.MetadataResponse).Brokers {
		if b.NodeID == nd.id {
			return nil
		}
	}
	return errors.New("not yet among the live brokers")
}

// tail returns the last n lines of the file at path.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
