package kafka

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rollsafe/rollsafe/client"
)

// statsCollector counts what librdkafka's statistics JSON reports, from
// rollsafe's client.Hooks and the producer's own queue accounting, and
// emits a *Stats event every statistics.interval.ms.
type statsCollector struct {
	p        *Producer
	clientID string
	start    time.Time

	mu        sync.Mutex
	txmsgs    int64 // messages in batches sent (first sends and retries)
	txBytes   int64 // bytes of batches sent
	tx, rx    int64 // batches sent, produce responses received
	retries   int64
	acked     int64 // messages acknowledged
	failed    int64 // messages that failed
	produced  int64 // messages accepted by Produce
	losses    int64 // data-loss events
	brokers   map[int32]*brokerStats
	topics    map[string]map[int32]*partStats
	pid       int64
	epoch     int16
	epochBump int64
}

type brokerStats struct {
	tx, txbytes, txretries, rx int64
	rtt                        []time.Duration // this window's samples
}

type partStats struct {
	leader          int32
	txmsgs, txbytes int64
	ackedMsgs       int64
	lastAckedOffset int64
	epochBumps      int64
	tailReads       int64
}

// rttSamples bounds the round-trip samples kept per broker and window.
const rttSamples = 4096

func newStatsCollector(p *Producer, s settings) *statsCollector {
	return &statsCollector{p: p, clientID: s.clientID, start: time.Now(), brokers: map[int32]*brokerStats{}, topics: map[string]map[int32]*partStats{}, pid: -1, epoch: -1}
}

func (s *statsCollector) broker(id int32) *brokerStats {
	b := s.brokers[id]
	if b == nil {
		b = &brokerStats{}
		s.brokers[id] = b
	}
	return b
}

func (s *statsCollector) part(topic string, partition int32) *partStats {
	t := s.topics[topic]
	if t == nil {
		t = map[int32]*partStats{}
		s.topics[topic] = t
	}
	ps := t[partition]
	if ps == nil {
		ps = &partStats{leader: -1, lastAckedOffset: -1}
		t[partition] = ps
	}
	return ps
}

// BatchSent is a client.Hooks field.
func (s *statsCollector) BatchSent(topic string, partition int32, broker int32, records int, bytes int, retry bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tx++
	s.txmsgs += int64(records)
	s.txBytes += int64(bytes)
	b := s.broker(broker)
	b.tx++
	b.txbytes += int64(bytes)
	if retry {
		s.retries++
		b.txretries++
	}
	ps := s.part(topic, partition)
	ps.leader = broker
	ps.txmsgs += int64(records)
	ps.txbytes += int64(bytes)
}

// BatchAcked is a client.Hooks field.
func (s *statsCollector) BatchAcked(topic string, partition int32, records int, baseOffset int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps := s.part(topic, partition)
	ps.ackedMsgs += int64(records)
	ps.lastAckedOffset = baseOffset + int64(records) - 1
}

// EpochBumped is a client.Hooks field.
func (s *statsCollector) EpochBumped(topic string, partition int32, producerID int64, epoch int16) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pid, s.epoch = producerID, epoch
	s.epochBump++
	s.part(topic, partition).epochBumps++
}

// TailRead is a client.Hooks field.
func (s *statsCollector) TailRead(topic string, partition int32, _ int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.part(topic, partition).tailReads++
}

// RequestLatency is a client.Hooks field.
func (s *statsCollector) RequestLatency(broker int32, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rx++
	b := s.broker(broker)
	b.rx++
	if len(b.rtt) < rttSamples {
		b.rtt = append(b.rtt, d)
	}
}

func (s *statsCollector) accepted() {
	s.mu.Lock()
	s.produced++
	s.mu.Unlock()
}

func (s *statsCollector) delivered(_ int64, ok bool) {
	s.mu.Lock()
	if ok {
		s.acked++
	} else {
		s.failed++
	}
	s.mu.Unlock()
}

func (s *statsCollector) dataLoss() {
	s.mu.Lock()
	s.losses++
	s.mu.Unlock()
}

// run emits a *Stats event every interval until the producer closes.
func (s *statsCollector) run(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.p.term:
			return
		case <-t.C:
			s.p.sendEvent(&Stats{statsJSON: s.json()})
		}
	}
}

// rttWindow is librdkafka's window statistics object, in microseconds.
type rttWindow struct {
	Min        int64 `json:"min"`
	Max        int64 `json:"max"`
	Avg        int64 `json:"avg"`
	Sum        int64 `json:"sum"`
	Cnt        int64 `json:"cnt"`
	Stddev     int64 `json:"stddev"`
	HdrSize    int64 `json:"hdrsize"`
	P50        int64 `json:"p50"`
	P75        int64 `json:"p75"`
	P90        int64 `json:"p90"`
	P95        int64 `json:"p95"`
	P99        int64 `json:"p99"`
	P99_99     int64 `json:"p99_99"`
	Outofrange int64 `json:"outofrange"`
}

func window(samples []time.Duration) rttWindow {
	var w rttWindow
	if len(samples) == 0 {
		return w
	}
	us := make([]int64, len(samples))
	for i, d := range samples {
		us[i] = d.Microseconds()
	}
	slices.Sort(us)
	w.Cnt = int64(len(us))
	w.Min, w.Max = us[0], us[len(us)-1]
	for _, v := range us {
		w.Sum += v
	}
	w.Avg = w.Sum / w.Cnt
	var sq float64
	for _, v := range us {
		d := float64(v - w.Avg)
		sq += d * d
	}
	w.Stddev = int64(math.Sqrt(sq / float64(w.Cnt)))
	pct := func(p float64) int64 { return us[min(len(us)-1, int(p*float64(len(us))))] }
	w.P50, w.P75, w.P90, w.P95, w.P99, w.P99_99 = pct(0.50), pct(0.75), pct(0.90), pct(0.95), pct(0.99), pct(0.9999)
	return w
}

type brokerJSON struct {
	Name      string    `json:"name"`
	NodeID    int32     `json:"nodeid"`
	NodeName  string    `json:"nodename"`
	Source    string    `json:"source"`
	State     string    `json:"state"`
	Tx        int64     `json:"tx"`
	TxBytes   int64     `json:"txbytes"`
	TxRetries int64     `json:"txretries"`
	Rx        int64     `json:"rx"`
	Rtt       rttWindow `json:"rtt"`
}

type partitionJSON struct {
	Partition       int32 `json:"partition"`
	Broker          int32 `json:"broker"`
	Leader          int32 `json:"leader"`
	TxMsgs          int64 `json:"txmsgs"`
	TxBytes         int64 `json:"txbytes"`
	AckedMsgs       int64 `json:"rollsafe_acked_msgs"`
	LastAckedOffset int64 `json:"rollsafe_last_acked_offset"`
	EpochBumps      int64 `json:"rollsafe_epoch_bumps"`
	TailReads       int64 `json:"rollsafe_tail_reads"`
}

type topicJSON struct {
	Topic      string                   `json:"topic"`
	Partitions map[string]partitionJSON `json:"partitions"`
}

type eosJSON struct {
	ProducerID    int64 `json:"producer_id"`
	ProducerEpoch int16 `json:"producer_epoch"`
	EpochCnt      int64 `json:"epoch_cnt"`
}

type statsJSON struct {
	Name       string                `json:"name"`
	ClientID   string                `json:"client_id"`
	Type       string                `json:"type"`
	Ts         int64                 `json:"ts"`
	Time       int64                 `json:"time"`
	Age        int64                 `json:"age"`
	Replyq     int64                 `json:"replyq"`
	MsgCnt     int64                 `json:"msg_cnt"`
	MsgSize    int64                 `json:"msg_size"`
	MsgMax     int64                 `json:"msg_max"`
	MsgSizeMax int64                 `json:"msg_size_max"`
	Tx         int64                 `json:"tx"`
	TxBytes    int64                 `json:"tx_bytes"`
	Rx         int64                 `json:"rx"`
	RxBytes    int64                 `json:"rx_bytes"`
	TxMsgs     int64                 `json:"txmsgs"`
	TxMsgBytes int64                 `json:"txmsg_bytes"`
	RxMsgs     int64                 `json:"rxmsgs"`
	RxMsgBytes int64                 `json:"rxmsg_bytes"`
	Brokers    map[string]brokerJSON `json:"brokers"`
	Topics     map[string]topicJSON  `json:"topics"`
	EOS        eosJSON               `json:"eos"`
	// rollsafe's own counters, prefixed so they never clash with
	// librdkafka's fields.
	Acked    int64 `json:"rollsafe_acked_msgs"`
	Failed   int64 `json:"rollsafe_failed_msgs"`
	Produced int64 `json:"rollsafe_produced_msgs"`
	Retries  int64 `json:"rollsafe_retried_batches"`
	DataLoss int64 `json:"rollsafe_data_loss_events"`
}

// json renders the statistics now and starts a new rtt window.
func (s *statsCollector) json() string {
	now := time.Now()
	st := statsJSON{
		Name:       s.p.name,
		ClientID:   s.clientID,
		Type:       "producer",
		Ts:         now.Sub(s.start).Microseconds(),
		Time:       now.Unix(),
		Age:        now.Sub(s.start).Microseconds(),
		Replyq:     int64(len(s.p.events)),
		MsgCnt:     s.p.queued.Load(),
		MsgSize:    s.p.queuedBytes.Load(),
		MsgMax:     s.p.maxMessages,
		MsgSizeMax: s.p.maxBytes,
		Brokers:    map[string]brokerJSON{},
		Topics:     map[string]topicJSON{},
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Tx, st.TxBytes, st.Rx = s.tx, s.txBytes, s.rx
	st.TxMsgs, st.TxMsgBytes = s.txmsgs, s.txBytes
	st.Acked, st.Failed, st.Produced, st.Retries, st.DataLoss = s.acked, s.failed, s.produced, s.retries, s.losses
	st.EOS = eosJSON{ProducerID: s.pid, ProducerEpoch: s.epoch, EpochCnt: s.epochBump}
	for id, b := range s.brokers {
		name := "node/" + strconv.Itoa(int(id))
		st.Brokers[name] = brokerJSON{Name: name, NodeID: id, Source: "learned", State: "UP",
			Tx: b.tx, TxBytes: b.txbytes, TxRetries: b.txretries, Rx: b.rx, Rtt: window(b.rtt)}
		b.rtt = b.rtt[:0]
	}
	for topic, parts := range s.topics {
		tj := topicJSON{Topic: topic, Partitions: map[string]partitionJSON{}}
		for id, ps := range parts {
			tj.Partitions[strconv.Itoa(int(id))] = partitionJSON{Partition: id, Broker: ps.leader, Leader: ps.leader,
				TxMsgs: ps.txmsgs, TxBytes: ps.txbytes, AckedMsgs: ps.ackedMsgs, LastAckedOffset: ps.lastAckedOffset,
				EpochBumps: ps.epochBumps, TailReads: ps.tailReads}
		}
		st.Topics[topic] = tj
	}
	out, err := json.Marshal(st)
	if err != nil { // cannot happen: plain structs and maps
		return fmt.Sprintf(`{"error":%q}`, err.Error())
	}
	return string(out)
}

// hooks returns the client.Hooks that feed s.
func (s *statsCollector) hooks() client.Hooks {
	return client.Hooks{BatchSent: s.BatchSent, BatchAcked: s.BatchAcked, EpochBumped: s.EpochBumped, TailRead: s.TailRead, RequestLatency: s.RequestLatency}
}
