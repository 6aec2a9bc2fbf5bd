package kafkatest

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config describes a cluster to launch. The zero value is 3 nodes of
// the default Kafka version.
type Config struct {
	// Brokers is the number of nodes, each broker and controller, every one
	// a voter of the KRaft quorum (default 3). In ZooKeeper mode they are
	// brokers only, beside one ZooKeeper.
	Brokers int
	// Version is the Kafka release to run (default DefaultVersion, 4.4.0).
	// 3.9 runs in KRaft mode as 4.4 does, 2.8 in ZooKeeper mode (see
	// Version). A Runtime given with it must be that version's.
	Version Version
	// Runtime is the java binary and jars (default: FindRuntimeFor(Version)).
	Runtime Runtime
	// Dir holds every node's config, data and log (default: a new
	// temporary directory, removed by Close).
	Dir string
	// HeapMB is each JVM's maximum heap (default 512).
	HeapMB int
	// Props are server properties added to (or replacing) the defaults of
	// every node, e.g. "auto.leader.rebalance.enable": "true".
	Props map[string]string
	// StartTimeout bounds one node's start, JVM to serving (default 90s).
	StartTimeout time.Duration
	// Logf receives progress lines (default: none).
	Logf func(format string, args ...any)
	// Listeners are secured client listeners added beside EXTERNAL (see
	// Listener): TLS, SASL PLAIN, SCRAM and OAUTHBEARER.
	Listeners []Listener
	// Users are SASL users, name to password, of the PLAIN and SCRAM
	// mechanisms the Listeners enable.
	Users map[string]string
	// Direct advertises each broker's EXTERNAL listener itself instead of
	// its fault proxy, and Addrs returns those addresses: clients reach
	// the brokers without the proxy copying every byte in this process
	// (for throughput measurements), and the proxy's faults do not reach
	// them.
	Direct bool
}

func (c Config) withDefaults() Config {
	if c.Brokers <= 0 {
		c.Brokers = 3
	}
	if c.HeapMB <= 0 {
		c.HeapMB = 512
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 90 * time.Second
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
	return c
}

// defaultProps are the server properties every test node gets, sized for
// a small cluster on a small machine. Leadership only moves when a test
// moves it (auto.leader.rebalance.enable=false); failures are noticed
// within seconds rather than the production defaults' tens of seconds.
func defaultProps(n int) map[string]string {
	rf := strconv.Itoa(min(n, 3))
	minISR := strconv.Itoa(max(1, min(n, 3)-1))
	return map[string]string{
		"auto.create.topics.enable":                        "false",
		"auto.leader.rebalance.enable":                     "false",
		"offsets.topic.replication.factor":                 rf,
		"offsets.topic.num.partitions":                     "3",
		"transaction.state.log.replication.factor":         rf,
		"transaction.state.log.min.isr":                    minISR,
		"transaction.state.log.num.partitions":             "3",
		"share.coordinator.state.topic.replication.factor": rf,
		"share.coordinator.state.topic.min.isr":            minISR,
		"group.initial.rebalance.delay.ms":                 "0",
		"num.network.threads":                              "2",
		"num.io.threads":                                   "2",
		"num.replica.fetchers":                             "1",
		"background.threads":                               "2",
		"num.recovery.threads.per.data.dir":                "1",
		"log.segment.bytes":                                strconv.Itoa(16 << 20),
		// Tests write records with old timestamps (batching/fixture's
		// start in 2024): the default 7-day time retention would delete
		// them 30 s after a broker starts, and a read-back would call
		// them lost.
		"log.retention.ms":                         "-1",
		"log.cleaner.threads":                      "1",
		"log.cleaner.dedupe.buffer.size":           strconv.Itoa(8 << 20),
		"log.cleaner.backoff.ms":                   "1000",
		"replica.lag.time.max.ms":                  "5000",
		"broker.heartbeat.interval.ms":             "500",
		"broker.session.timeout.ms":                "4000",
		"producer.id.expiration.check.interval.ms": "1000",
		// A transaction past its timeout is aborted within a second
		// (Kafka's default checks every 10 s).
		"transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
		"controlled.shutdown.enable":                                  "true",
		"delete.topic.enable":                                         "true",
	}
}

// nodeProps renders one node's server.properties; quorum is the KRaft
// voters, or in ZooKeeper mode the zookeeper.connect string.
func nodeProps(cfg Config, nd *node, quorum, keystore string) string {
	props := defaultProps(cfg.Brokers)
	zk := cfg.Version.ZooKeeper()
	protoMap := "INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT"
	listeners := fmt.Sprintf("INTERNAL://127.0.0.1:%d,EXTERNAL://127.0.0.1:%d", nd.internalPort, nd.externalPort)
	if !zk {
		protoMap += ",CONTROLLER:PLAINTEXT"
		listeners += fmt.Sprintf(",CONTROLLER://127.0.0.1:%d", nd.controllerPort)
	}
	// Clients are told the proxy's address; brokers reach each other on
	// INTERNAL, which bypasses the proxy.
	external := nd.proxy.Addr()
	if cfg.Direct {
		external = fmt.Sprintf("127.0.0.1:%d", nd.externalPort)
	}
	advertised := fmt.Sprintf("INTERNAL://127.0.0.1:%d,EXTERNAL://%s", nd.internalPort, external)
	for i, l := range cfg.Listeners {
		protoMap += fmt.Sprintf(",%s:%s", l.Name, l.Protocol)
		listeners += fmt.Sprintf(",%s://127.0.0.1:%d", l.Name, nd.extra[i].port)
		advertised += fmt.Sprintf(",%s://%s", l.Name, nd.extra[i].proxy.Addr())
	}
	if zk {
		// zookeeper.session.timeout.ms stays at its default, 18 s: with a
		// few seconds a loaded machine lets a healthy broker's session
		// expire, and a 2.8 broker can exit over it.
		maps.Copy(props, map[string]string{
			"broker.id":         strconv.Itoa(int(nd.id)),
			"zookeeper.connect": quorum,
		})
	} else {
		maps.Copy(props, map[string]string{
			"process.roles":             "broker,controller",
			"node.id":                   strconv.Itoa(int(nd.id)),
			"controller.quorum.voters":  quorum,
			"controller.listener.names": "CONTROLLER",
		})
	}
	maps.Copy(props, map[string]string{
		"inter.broker.listener.name":     "INTERNAL",
		"listener.security.protocol.map": protoMap,
		"listeners":                      listeners,
		"advertised.listeners":           advertised,
		"log.dirs":                       nd.dataDir(),
	})
	maps.Copy(props, securityProps(cfg, keystore))
	maps.Copy(props, cfg.Props)
	var b strings.Builder
	b.WriteString("# written by rollsafe's kafkatest\n")
	for _, k := range slices.Sorted(maps.Keys(props)) {
		fmt.Fprintf(&b, "%s=%s\n", k, props[k])
	}
	return b.String()
}

// log4jConfig sends the broker's log to stdout (the node's log file), INFO
// for the broker, WARN for the chattiest loggers.
const log4jConfig = `status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d{HH:mm:ss,SSS}] %p %m (%c{1})%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = OUT
logger.state.name = state.change.logger
logger.state.level = WARN
logger.req.name = kafka.request.logger
logger.req.level = WARN
logger.cfg.name = org.apache.kafka.common.config.AbstractConfig
logger.cfg.level = WARN
logger.appinfo.name = org.apache.kafka.common.utils.AppInfoParser
logger.appinfo.level = WARN
`
