package kafkatest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rollsafe/rollsafe/sim"
)

// Cluster is a running Kafka cluster of child JVMs: KRaft nodes, or in
// ZooKeeper mode brokers and a ZooKeeper. Node ids are 0..Brokers-1.
// Methods are safe for concurrent use.
type Cluster struct {
	cfg       Config
	clusterID string
	ownDir    bool
	nodes     []*node
	zk        *node // ZooKeeper mode's ZooKeeper; nil in KRaft mode
	lock      *machineLock
	ca        *sim.TestCA // the TLS listeners' CA; nil without one
	cds       cdsPlan

	mu     sync.Mutex
	closed bool
}

// Launch formats storage for every node with one cluster id (KRaft), or
// starts a ZooKeeper (ZooKeeper mode), starts every node and returns once
// each is registered and serving. On error nothing is left running. One
// cluster runs at a time on a machine: Launch first waits (bounded by
// ctx) for any other kafkatest cluster to close (see LockPath).
//
// Ports are picked free and released for the brokers to bind, so another
// process may take one in between (loopback clients take ephemeral ports
// from the same range); a cluster in a directory of its own is then
// launched again on new ports, up to three times in all.
func Launch(ctx context.Context, cfg Config) (*Cluster, error) {
	for attempt := 1; ; attempt++ {
		c, err := launchOnce(ctx, cfg)
		if err == nil || attempt == 3 || cfg.Dir != "" || !errors.Is(err, errPortTaken) || ctx.Err() != nil {
			return c, err
		}
		if cfg.Logf != nil {
			cfg.Logf("kafkatest: launch %d: a port was taken before its broker bound it; launching again on new ports", attempt)
		}
	}
}

// launchOnce is one attempt of Launch.
func launchOnce(ctx context.Context, cfg Config) (c *Cluster, err error) {
	cfg = cfg.withDefaults()
	if err := validateSecurity(cfg); err != nil {
		return nil, err
	}
	if cfg.Runtime.Java == "" {
		if cfg.Runtime, err = FindRuntimeFor(cfg.Version); err != nil {
			return nil, err
		}
	}
	switch {
	case cfg.Version == "":
		cfg.Version = cfg.Runtime.Version.orDefault()
	case cfg.Version.orDefault() != cfg.Runtime.Version.orDefault():
		return nil, fmt.Errorf("kafkatest: Config.Version %s with the runtime of Kafka %s", cfg.Version, cfg.Runtime.Version.orDefault())
	}
	if cfg.Version.ZooKeeper() && len(cfg.Listeners) > 0 {
		return nil, fmt.Errorf("kafkatest: secured listeners are not supported in ZooKeeper mode (Kafka %s)", cfg.Version)
	}
	c = &Cluster{cfg: cfg}
	waited := time.Now()
	if c.lock, err = acquireLock(ctx, cfg.Logf); err != nil {
		return nil, err
	}
	lockWait := time.Since(waited)
	defer func() {
		if err != nil {
			_ = c.Close()
			c = nil
		}
	}()
	if cfg.Dir == "" {
		if c.cfg.Dir, err = os.MkdirTemp("", "kafkatest-"); err != nil {
			return c, fmt.Errorf("kafkatest: %w", err)
		}
		c.ownDir = true
	}
	var id [16]byte
	_, _ = rand.Read(id[:])
	c.clusterID = base64.RawURLEncoding.EncodeToString(id[:])

	var keystore string
	if usesTLS(cfg.Listeners) {
		if c.ca, err = sim.NewTestCA(); err != nil {
			return c, fmt.Errorf("kafkatest: %w", err)
		}
		if keystore, err = writeKeystore(c.cfg.Dir, c.ca); err != nil {
			return c, err
		}
	}
	per := 3 + len(cfg.Listeners)
	zkPorts := 0
	if cfg.Version.ZooKeeper() {
		zkPorts = 1
	}
	ports, err := freePorts(per*cfg.Brokers + zkPorts)
	if err != nil {
		return c, err
	}
	if zkPorts > 0 {
		c.zk = newZooKeeper(c.cfg.Dir, ports[per*cfg.Brokers])
		if err := c.zk.writeZooKeeperConfig(c.cfg); err != nil {
			return c, err
		}
	}
	var voters []string
	for i := range cfg.Brokers {
		np := ports[per*i:]
		nd := &node{id: int32(i), dir: filepath.Join(c.cfg.Dir, fmt.Sprintf("node-%d", i)),
			internalPort: np[0], externalPort: np[1], controllerPort: np[2]}
		c.nodes = append(c.nodes, nd)
		if nd.proxy, err = newProxy(fmt.Sprintf("127.0.0.1:%d", nd.externalPort)); err != nil {
			return c, err
		}
		for j := range cfg.Listeners {
			x := extraListener{port: np[3+j]}
			if x.proxy, err = newProxy(fmt.Sprintf("127.0.0.1:%d", x.port)); err != nil {
				return c, err
			}
			nd.extra = append(nd.extra, x)
		}
		voters = append(voters, fmt.Sprintf("%d@127.0.0.1:%d", i, nd.controllerPort))
	}
	quorum := strings.Join(voters, ",")
	if c.zk != nil {
		quorum = c.zk.zooKeeperConnect()
	}
	for _, nd := range c.nodes {
		if err := nd.writeConfig(c.cfg, quorum, keystore); err != nil {
			return c, err
		}
	}
	c.prepareCDS()
	began := time.Now()
	if c.zk != nil {
		// No storage to format: the brokers register in ZooKeeper, and
		// the cluster id is the one ZooKeeper's first broker creates.
		if err := c.startZooKeeper(ctx); err != nil {
			return c, err
		}
	} else if err := c.each(func(nd *node) error { return nd.format(ctx, c.cfg, c.clusterID) }); err != nil {
		return c, err
	}
	formatted := time.Since(began)
	if err := c.each(func(nd *node) error { return c.startNode(ctx, nd) }); err != nil {
		return c, err
	}
	prep := "format"
	if c.zk != nil {
		prep = "ZooKeeper " + c.zk.zooKeeperConnect()
		c.clusterID = c.zooKeeperClusterID(ctx)
	}
	cfg.Logf("kafkatest: %d-node Kafka %s (%s) cluster %s up in %v (%s %v%s; waited %v for the machine lock before), bootstrap %s",
		cfg.Brokers, cfg.Version, cfg.Version.Mode(), c.clusterID, time.Since(began).Round(time.Millisecond), prep, formatted.Round(time.Millisecond),
		c.cds.describe(), lockWait.Round(time.Second), strings.Join(c.Addrs(), ","))
	c.finishCDS(ctx)
	return c, nil
}

// each runs f for every node at once and joins the errors.
func (c *Cluster) each(f func(*node) error) error {
	errs := make([]error, len(c.nodes))
	var wg sync.WaitGroup
	for i, nd := range c.nodes {
		wg.Go(func() { errs[i] = f(nd) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Version is the Kafka release the cluster runs.
func (c *Cluster) Version() Version { return c.cfg.Version }

// ID is the cluster id every node was formatted with (in ZooKeeper mode:
// the one the brokers registered, as metadata shows it).
func (c *Cluster) ID() string { return c.clusterID }

// Dir is the directory holding every node's config, data and log.
func (c *Cluster) Dir() string { return c.cfg.Dir }

// Brokers is the number of nodes.
func (c *Cluster) Brokers() int { return len(c.nodes) }

// Addrs are the bootstrap addresses clients use: each broker's proxy (or,
// with Config.Direct, its client listener), in node id order. Brokers
// advertise these addresses in metadata.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.nodes))
	for i, nd := range c.nodes {
		if c.cfg.Direct {
			out[i] = c.DirectAddr(nd.id)
		} else {
			out[i] = nd.proxy.Addr()
		}
	}
	return out
}

// DirectAddr is node id's client listener without the proxy (metadata
// from it still names the proxies).
func (c *Cluster) DirectAddr(id int32) string {
	return fmt.Sprintf("127.0.0.1:%d", c.node(id).externalPort)
}

// Proxy is the fault proxy in front of node id's client listener.
func (c *Cluster) Proxy(id int32) *Proxy { return c.node(id).proxy }

func (c *Cluster) node(id int32) *node {
	if id < 0 || int(id) >= len(c.nodes) {
		panic(fmt.Sprintf("kafkatest: no node %d in a %d-node cluster", id, len(c.nodes)))
	}
	return c.nodes[id]
}

// Running reports whether node id's JVM is alive (paused counts).
func (c *Cluster) Running(id int32) bool { return c.node(id).running() }

// PID returns the process id of node id's running JVM (a paused one
// counts), for a caller that samples it (its CPU time in /proc, say), or
// an error if the node is not running.
func (c *Cluster) PID(id int32) (int, error) {
	nd := c.node(id)
	cmd, exited := nd.proc()
	if cmd == nil {
		return 0, fmt.Errorf("kafkatest: node %d was never started", id)
	}
	select {
	case <-exited:
		return 0, fmt.Errorf("kafkatest: node %d is not running", id)
	default:
	}
	return cmd.Process.Pid, nil
}

// Paused reports whether node id is stopped with SIGSTOP.
func (c *Cluster) Paused(id int32) bool { return c.node(id).isPaused() }

// Start starts node id again (same ports, same data) and waits until it
// is registered and serving.
func (c *Cluster) Start(ctx context.Context, id int32) error {
	if err := c.checkOpen(); err != nil {
		return err
	}
	return c.startNode(ctx, c.node(id))
}

// Stop shuts node id down with SIGTERM (Kafka's controlled shutdown: its
// leaderships move away first) and waits for the JVM to exit. If ctx ends
// first the JVM is killed and ctx's error returned.
func (c *Cluster) Stop(ctx context.Context, id int32) error {
	return c.node(id).stop(ctx)
}

// Kill ends node id with SIGKILL (a crash) and waits for the JVM to exit.
func (c *Cluster) Kill(id int32) error { return c.node(id).kill() }

// Pause freezes node id with SIGSTOP: its sockets stay open and silent.
func (c *Cluster) Pause(id int32) error { return c.node(id).pause() }

// Resume continues a paused node with SIGCONT.
func (c *Cluster) Resume(id int32) error { return c.node(id).resume() }

// LogPath is node id's broker log file.
func (c *Cluster) LogPath(id int32) string { return c.node(id).logPath() }

// LogTails returns Diagnose's lines, then the last n lines of every
// node's log, headed by node.
func (c *Cluster) LogTails(n int) string {
	var b strings.Builder
	b.WriteString(c.Diagnose())
	for _, nd := range c.nodes {
		fmt.Fprintf(&b, "---- kafkatest node %d log (%s), last %d lines ----\n%s\n", nd.id, nd.logPath(), n, tail(nd.logPath(), n))
	}
	if c.zk != nil {
		fmt.Fprintf(&b, "---- kafkatest ZooKeeper log (%s), last %d lines ----\n%s\n", c.zk.logPath(), n, tail(c.zk.logPath(), n))
	}
	return b.String()
}

func (c *Cluster) checkOpen() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("kafkatest: cluster closed")
	}
	return nil
}

// Close kills every node (their data is disposable), then the ZooKeeper
// of a ZooKeeper-mode cluster, stops the proxies and removes the
// directory it created. Safe to call twice.
func (c *Cluster) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	var errs []error
	for _, nd := range c.nodes {
		if err := nd.kill(); err != nil {
			errs = append(errs, err)
		}
		if nd.proxy != nil {
			_ = nd.proxy.Close()
		}
		for _, x := range nd.extra {
			if x.proxy != nil {
				_ = x.proxy.Close()
			}
		}
	}
	if c.zk != nil {
		// After the brokers: none is left to wait for its session.
		if err := c.zk.kill(); err != nil {
			errs = append(errs, err)
		}
	}
	if c.ownDir {
		if err := os.RemoveAll(c.cfg.Dir); err != nil {
			errs = append(errs, err)
		}
	}
	c.lock.release()
	return errors.Join(errs...)
}
