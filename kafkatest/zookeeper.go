package kafkatest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// A ZooKeeper-mode cluster (Version.ZooKeeper) has one standalone
// ZooKeeper server, started from the brokers' own jars (Kafka 2.8.1
// brings ZooKeeper 3.5.9) before them and stopped after them. It is a
// node with id -1, so starting, killing and log tails work as for a
// broker. Its four-letter-word commands tell the harness when it serves
// (srvr) and which ephemeral znodes live sessions still hold (dump); both
// answer "This ZooKeeper instance is not currently serving requests"
// until it does (ruok answers imok before).

// zooKeeperID is the node id of a cluster's ZooKeeper.
const zooKeeperID = -1

// newZooKeeper is the ZooKeeper node of a cluster in dir, on port.
func newZooKeeper(dir string, port int) *node {
	return &node{id: zooKeeperID, dir: filepath.Join(dir, "zookeeper"), externalPort: port}
}

// zooKeeperConnect is the brokers' zookeeper.connect.
func (nd *node) zooKeeperConnect() string { return fmt.Sprintf("127.0.0.1:%d", nd.externalPort) }

// writeZooKeeperConfig writes zoo.cfg and the log4j2 config and fixes
// the JVM command line. ZooKeeper's tick stays at 2 s, so the brokers'
// default 18 s session (zookeeper.session.timeout.ms) is within the
// 4-40 s ZooKeeper grants.
func (nd *node) writeZooKeeperConfig(cfg Config) error {
	if err := os.MkdirAll(nd.dir, 0o755); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	zooCfg := filepath.Join(nd.dir, "zoo.cfg")
	props := fmt.Sprintf(`# written by rollsafe's kafkatest
dataDir=%s
clientPort=%d
clientPortAddress=127.0.0.1
tickTime=2000
maxClientCnxns=0
admin.enableServer=false
4lw.commands.whitelist=srvr,dump
`, nd.dataDir(), nd.externalPort)
	if err := os.WriteFile(zooCfg, []byte(props), 0o644); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	log4j := filepath.Join(nd.dir, "log4j2.properties")
	if err := os.WriteFile(log4j, []byte(log4jConfig), 0o644); err != nil {
		return fmt.Errorf("kafkatest: %w", err)
	}
	nd.javaArgs = []string{
		"-Xmx128m", "-Xms32m", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError",
		"-XX:-UsePerfData", "-Djava.awt.headless=true",
		"-Dzookeeper.jmx.log4j.disable=true",
		"-Dlog4j2.configurationFile=" + log4j,
		"-cp", cfg.Runtime.Classpath(),
	}
	nd.main = []string{"org.apache.zookeeper.server.quorum.QuorumPeerMain", zooCfg}
	return nil
}

// startZooKeeper launches the cluster's ZooKeeper and waits until it
// serves.
func (c *Cluster) startZooKeeper(ctx context.Context) error {
	nd := c.zk
	if err := nd.launch(c.cfg); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.StartTimeout)
	defer cancel()
	_, exited := nd.proc()
	for {
		answer, err := fourLetter(ctx, nd.externalPort, "srvr")
		if err == nil && strings.HasPrefix(answer, "Zookeeper version:") {
			return nil
		}
		select {
		case <-exited:
			err := fmt.Errorf("kafkatest: ZooKeeper exited while starting (%v); log tail:\n%s", nd.exitErr(), tail(nd.logPath(), 40))
			if nd.portTaken() {
				err = fmt.Errorf("%w: %w", errPortTaken, err)
			}
			return err
		case <-ctx.Done():
			_ = nd.kill()
			return fmt.Errorf("kafkatest: ZooKeeper not serving after %v (srvr: %q, %v): %w; log tail:\n%s",
				c.cfg.StartTimeout, answer, err, ctx.Err(), tail(nd.logPath(), 40))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// awaitRegistrationGone waits until no ZooKeeper session holds broker id's
// registration (/brokers/ids/<id>). A broker killed with SIGKILL leaves it
// behind until its session expires (zookeeper.session.timeout.ms, 18 s);
// a broker started again before that finds the znode owned by another
// session and exits ("node already exists and owner ... does not match
// current session").
func (c *Cluster) awaitRegistrationGone(ctx context.Context, id int32) error {
	path := fmt.Sprintf("/brokers/ids/%d", id)
	for {
		dump, err := fourLetter(ctx, c.zk.externalPort, "dump")
		if err == nil && !holdsEphemeral(dump, path) {
			return nil
		}
		if err == nil {
			err = fmt.Errorf("dump: %.200q", dump)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafkatest: node %d's ZooKeeper registration %s still held: %w (last: %v)", id, path, ctx.Err(), err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// holdsEphemeral reports whether ZooKeeper's dump lists path among the
// ephemeral znodes of its sessions (one path a line, indented), or may:
// a ZooKeeper that is not serving lists none.
func holdsEphemeral(dump, path string) bool {
	if !strings.Contains(dump, "Sessions with Ephemerals") {
		return true
	}
	sc := bufio.NewScanner(strings.NewReader(dump))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == path {
			return true
		}
	}
	return false
}

// fourLetter sends one of ZooKeeper's four-letter-word commands and
// returns the answer (the server closes the connection after it).
func fourLetter(ctx context.Context, port int, cmd string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return "", err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if _, err := io.WriteString(conn, cmd); err != nil {
		return "", err
	}
	b, err := io.ReadAll(conn)
	return strings.TrimSpace(string(b)), err
}

// zooKeeperClusterID is the cluster id the brokers registered in
// ZooKeeper (the first broker creates it), as metadata shows it; "" if
// no node answers.
func (c *Cluster) zooKeeperClusterID(ctx context.Context) string {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = []kmsg.MetadataRequestTopic{}
	resp, err := c.request(ctx, req)
	if err != nil {
		return ""
	}
	if id := resp.(*kmsg.MetadataResponse).ClusterID; id != nil {
		return *id
	}
	return ""
}
