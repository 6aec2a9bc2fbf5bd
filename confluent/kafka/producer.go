package kafka

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/protocol"
)

// Producer implements a High-level Apache Kafka Producer instance on
// rollsafe's idempotent producer (client.Producer). It is safe for
// concurrent use.
type Producer struct {
	c      *client.Producer
	name   string
	events chan Event
	// produceChannel feeds the deprecated channel-based producer.
	produceChannel chan *Message
	fwdDr          bool
	onlyErrors     bool // delivery.report.only.error
	fields         messageFields

	maxMessages     int64
	maxBytes        int64
	messageMaxBytes int

	// queued counts messages accepted by Produce whose delivery report
	// the callback goroutine has not taken in hand yet (librdkafka's
	// rd_kafka_outq_len without the events channel); handing counts the
	// reports in hand, being given to a channel (at most one: the client
	// calls back on one goroutine); queuedBytes is the key+value+header
	// bytes of both. Len leaves handing out, so that the application that
	// has just received a report never sees it counted; Flush and the
	// queue limits count it.
	queued      atomic.Int64
	handing     atomic.Int64
	queuedBytes atomic.Int64

	ctx    context.Context // given to the client's produce; cancelled by Close
	cancel context.CancelFunc
	term   chan struct{} // closed by Close: blocked channel sends give up

	mu        sync.Mutex // orders Produce calls against Close
	closed    bool
	producing sync.WaitGroup // Produce calls inside the client
	wg        sync.WaitGroup // the channel producer and stats goroutines

	stats    *statsCollector
	oauth    *oauthTokens          // tokens set by the application (OAUTHBEARER without the unsecured JWT handler)
	lastDown atomic.Int64          // when the last ErrAllBrokersDown event was sent (Unix ns)
	fatal    atomic.Pointer[Error] // set once by TestFatalError

	// transactional: transactional.id is set; txnOpen: BeginTransaction
	// succeeded and no CommitTransaction or AbortTransaction has begun
	// since (Produce is refused otherwise, as librdkafka refuses it).
	transactional bool
	txnOpen       atomic.Bool
	txnTimeout    time.Duration

	creds   *protocol.SASLCredentials // PLAIN or SCRAM credentials (SetSaslCredentials), else nil
	logs    chan LogEvent             // Logs(), nil unless go.logs.channel.enable
	ownLogs bool                      // logs was made here (not go.logs.channel): Close closes it
}

// pending is one message between Produce and its delivery report: the
// client's record and the report, allocated together.
type pending struct {
	rec  client.Record
	dr   Message
	ch   chan Event
	size int64
}

// recordSlack is what a record's framing and its batch header may add to
// message.max.bytes in the client's own size check (which counts a batch of
// one record): the batch header is 61 bytes, a record's varints at most 26,
// and each header's two length varints at most 10.
const recordSlack = 61 + 26

var producerCount atomic.Int64

// confWarnLevel is the syslog level of the CONFWARN log events (warning),
// as librdkafka reports ignored properties.
const confWarnLevel = 4

// NewProducer creates a new high-level Producer instance.
//
// conf is a *ConfigMap with standard librdkafka configuration properties;
// the package documentation lists the supported ones and what each maps
// to. An unknown or unsupported property is an error naming it (code
// ErrInvalidArg, matching client.ErrInvalidConfig and
// ErrUnsupportedProperty under errors.Is).
//
// Supported special configuration properties (type, default):
//
//	go.delivery.reports (bool, true) - Forward per-message delivery reports to the
//	                                   Events() channel.
//	go.delivery.report.fields (string, "key,value") - Comma separated list of fields to enable for delivery reports.
//	                                    Allowed values: all, none (or empty string), key, value, headers
//	go.events.channel.size (int, 1000000) - Events().
//	go.produce.channel.size (int, 1000000) - ProduceChannel() buffer size (in number of messages)
//	go.logs.channel.enable (bool, false) - Forward log to Logs() channel.
//	go.logs.channel (chan kafka.LogEvent, nil) - Forward logs to application-provided channel instead of Logs(). Requires go.logs.channel.enable=true.
func NewProducer(conf *ConfigMap) (*Producer, error) {
	return newProducer(conf, nil)
}

// newProducer is NewProducer with extra client options applied after the
// configuration's (the package's tests give an in-memory network's dialer
// and client.SyncTest).
func newProducer(conf *ConfigMap, extra []client.Option) (*Producer, error) {
	s, err := readConfig(conf)
	if err != nil {
		return nil, err
	}
	opts, err := s.clientOptions()
	if err != nil {
		return nil, err
	}
	p := &Producer{
		name:            fmt.Sprintf("%s#producer-%d", s.clientID, producerCount.Add(1)),
		events:          make(chan Event, s.eventsSize),
		produceChannel:  make(chan *Message, s.produceChanSize),
		fwdDr:           s.deliveryReports,
		onlyErrors:      s.onlyErrors,
		fields:          s.drFields,
		maxMessages:     int64(s.maxMessages),
		maxBytes:        int64(s.maxKBytes) * 1024,
		messageMaxBytes: s.messageMaxBytes,
		term:            make(chan struct{}),
		creds:           s.saslCreds,
		transactional:   s.txnID != "",
		txnTimeout:      s.txnTimeout,
	}
	p.stats = newStatsCollector(p, s)
	if oauth, err := p.oauthOption(s); err != nil {
		return nil, err
	} else if oauth != nil {
		opts = append(opts, oauth)
	}
	opts = append(opts, client.WithHooks(p.stats.hooks()), client.OnDataLoss(p.dataLoss))
	var logs *logQueue
	if s.logsEnable {
		p.logs, p.ownLogs = s.logsChan, s.logsChan == nil
		if p.ownLogs {
			p.logs = make(chan LogEvent, maxQueuedLogs)
		}
		logs = newLogQueue()
		if s.logLevel >= confWarnLevel {
			for _, n := range s.notes {
				logs.push(LogEvent{Name: p.name, Tag: "CONFWARN", Message: n, Level: confWarnLevel, Timestamp: time.Now()})
			}
		}
		opts = append(opts, client.WithLogger(slog.New(&logHandler{name: p.name, max: s.logLevel, q: logs})))
	}
	c, err := client.NewProducer(append(opts, extra...)...)
	if err != nil {
		return nil, Error{code: ErrInvalidArg, str: err.Error(), err: err}
	}
	p.c = c
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.wg.Add(1)
	go func() { defer p.wg.Done(); p.channelProducer() }()
	if logs != nil {
		p.wg.Add(1)
		go func() { defer p.wg.Done(); logs.forward(p.name, p.logs, p.term) }()
	}
	if s.statsInterval > 0 {
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.stats.run(s.statsInterval) }()
	}
	if p.oauth != nil {
		// librdkafka asks for the first token when the client starts.
		p.oauth.mu.Lock()
		p.oauth.refreshLocked()
		p.oauth.mu.Unlock()
	}
	return p, nil
}

// oauthOption is the client's OAUTHBEARER option: the unsecured JWT
// handler, or the tokens the application sets on p.
func (p *Producer) oauthOption(s settings) (client.Option, error) {
	if s.saslMechanism != "OAUTHBEARER" || (s.security != "sasl_plaintext" && s.security != "sasl_ssl") {
		return nil, nil
	}
	if s.oauthUnsecureJWT {
		u, err := parseUnsecuredJWTConfig(s.oauthConfig)
		if err != nil {
			return nil, configError(fmt.Sprintf(`"sasl.oauthbearer.config": %v`, err))
		}
		return client.SASLOAuthBearer(u.provide), nil
	}
	p.oauth = newOAuthTokens(s.oauthConfig, func(ev Event) {
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.sendEvent(ev) }()
	})
	return client.SASLOAuthBearer(p.oauth.provide), nil
}

// String returns a human readable name for a Producer instance.
func (p *Producer) String() string { return p.name }

// IsClosed returns boolean representing if client is closed or not.
func (p *Producer) IsClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Produce single message.
//
// This is an asynchronous call that enqueues the message on the internal
// transmit queue: the delivery report is sent on the provided deliveryChan
// if specified, or on the Producer object's Events() channel if not (and
// go.delivery.reports is true). Key, Value and Headers are copied before
// Produce returns; the caller may reuse them.
//
// Produce returns an Error at once, and the message is not produced, when
// the message is nil or has no topic (ErrInvalidArg), is larger than
// message.max.bytes (ErrMsgSizeTooLarge), when queue.buffering.max.messages
// or queue.buffering.max.kbytes is reached (ErrQueueFull: call Flush or read
// delivery reports, then retry) or after Close (ErrState). Produce never
// waits for the cluster: a message for a topic whose metadata is not known
// yet is queued, and fails in its delivery report with
// ErrUnknownTopicOrPart if the cluster does not have the topic within
// topic.metadata.propagation.max.ms, or with ErrAllBrokersDown if no broker
// could be reached to ask.
func (p *Producer) Produce(msg *Message, deliveryChan chan Event) error {
	return p.produce(msg, deliveryChan, false)
}

func (p *Producer) produce(msg *Message, deliveryChan chan Event, block bool) error {
	if msg == nil || msg.TopicPartition.Topic == nil || len(*msg.TopicPartition.Topic) == 0 {
		return newErrorFromString(ErrInvalidArg, "")
	}
	size := int64(len(msg.Key) + len(msg.Value))
	hdrBytes := 0
	for _, h := range msg.Headers {
		hdrBytes += len(h.Key) + len(h.Value) + 10
	}
	size += int64(hdrBytes)
	if int(size)+26 > p.messageMaxBytes {
		return Error{code: ErrMsgSizeTooLarge, str: fmt.Sprintf("Broker: Message size too large: %d bytes of key, value and headers exceed message.max.bytes %d", size, p.messageMaxBytes), err: client.ErrRecordTooLarge}
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return newErrorFromString(ErrState, "Operation not allowed on closed client")
	}
	if fe := p.fatal.Load(); fe != nil {
		p.mu.Unlock()
		return p.fatalProduceError(fe)
	}
	if p.transactional && !p.txnOpen.Load() {
		p.mu.Unlock()
		return Error{code: ErrState, str: "Local: Erroneous state: no transaction open (transactional.id is set: produce between BeginTransaction and CommitTransaction or AbortTransaction)", err: client.ErrNoTransaction}
	}
	p.producing.Add(1)
	p.mu.Unlock()
	defer p.producing.Done()
	for !p.reserve(size) {
		if !block {
			return Error{code: ErrQueueFull, str: fmt.Sprintf("Local: Queue full (%d messages, %d bytes queued; queue.buffering.max.messages %d, queue.buffering.max.kbytes %d)", p.queued.Load()+p.handing.Load(), p.queuedBytes.Load(), p.maxMessages, p.maxBytes/1024), retriable: true, err: client.ErrBufferFull}
		}
		select {
		case <-p.term:
			return newErrorFromString(ErrState, "Operation not allowed on closed client")
		case <-time.After(time.Millisecond):
		}
	}
	pd := &pending{ch: deliveryChan, size: size}
	tp := msg.TopicPartition
	pd.rec = client.Record{
		Topic:        *tp.Topic,
		Partition:    tp.Partition,
		HasPartition: tp.Partition != PartitionAny,
		Key:          msg.Key,
		Value:        msg.Value,
		Timestamp:    msg.Timestamp,
		Context:      pd,
	}
	if len(msg.Headers) > 0 {
		hs := make([]client.Header, len(msg.Headers))
		for i, h := range msg.Headers {
			hs[i] = client.Header(h)
		}
		pd.rec.Headers = hs
	}
	pd.dr = Message{
		TopicPartition: TopicPartition{Topic: tp.Topic, Partition: tp.Partition, Offset: OffsetInvalid},
		Opaque:         msg.Opaque,
	}
	if p.fields.key {
		pd.dr.Key = msg.Key
	}
	if p.fields.value {
		pd.dr.Value = msg.Value
	}
	if p.fields.headers && msg.Headers != nil {
		pd.dr.Headers = append([]Header(nil), msg.Headers...)
	}
	p.stats.accepted()
	// Produce's own limits keep the client's buffer from filling (see
	// clientOptions); should it fill anyway, the client waits for room
	// rather than failing the message.
	p.c.Produce(p.ctx, &pd.rec, p.delivered)
	return nil
}

// reserve counts a message of size bytes into the queue if there is room.
func (p *Producer) reserve(size int64) bool {
	if p.queued.Add(1)+p.handing.Load() > p.maxMessages {
		p.queued.Add(-1)
		return false
	}
	if p.queuedBytes.Add(size) > p.maxBytes && size > 0 {
		p.queuedBytes.Add(-size)
		p.queued.Add(-1)
		return false
	}
	return true
}

// delivered is the client's callback: it turns the outcome into a
// delivery report and hands it to its channel.
func (p *Producer) delivered(r *client.Record, err error) {
	pd := r.Context.(*pending)
	dr := &pd.dr
	dr.TopicPartition.Partition = r.Partition
	dr.Timestamp, dr.TimestampType = r.Timestamp, TimestampCreateTime
	if err == nil {
		dr.TopicPartition.Offset = Offset(r.Offset)
	} else {
		de := deliveryError(err)
		if fe := p.fatal.Load(); fe != nil && de.code == ErrPurgeQueue {
			// Purged because the producer went fatal (TestFatalError).
			de.str = fmt.Sprintf("%s (%s)", de.str, fe)
			de.err = errors.Join(de.err, *fe)
		}
		dr.TopicPartition.Error = de
	}
	// The reports' key and value are the caller's slices, which the client
	// copied into its batch; the report keeps referencing them like
	// librdkafka's copy would, without a second copy.
	p.stats.delivered(pd.size, err == nil)
	if err != nil && errors.Is(err, client.ErrBrokersUnreachable) {
		p.allBrokersDown(err)
	}
	ch := pd.ch
	if ch == nil && p.fwdDr {
		ch = p.events
	}
	if err == nil && p.onlyErrors {
		ch = nil // delivery.report.only.error: no report for a delivered message
	}
	if ch == nil {
		p.queuedBytes.Add(-pd.size)
		p.queued.Add(-1)
		return
	}
	// The report leaves queued before the send: once the application
	// has received it, Len no longer counts it.
	p.handing.Add(1)
	p.queued.Add(-1)
	select {
	case ch <- dr:
	case <-p.term:
	}
	p.queuedBytes.Add(-pd.size)
	p.handing.Add(-1)
}

// allBrokersDown raises librdkafka's ErrAllBrokersDown Error event when a
// message failed because no broker could be reached, at most once a second.
func (p *Producer) allBrokersDown(err error) {
	now := time.Now().UnixNano()
	last := p.lastDown.Load()
	if now-last < int64(time.Second) || !p.lastDown.CompareAndSwap(last, now) {
		return
	}
	p.sendEvent(Error{code: ErrAllBrokersDown, str: err.Error(), retriable: true, err: err})
}

// dataLoss reports acknowledged messages that vanished as an Error event.
func (p *Producer) dataLoss(d client.DataLoss) {
	p.stats.dataLoss()
	p.sendEvent(dataLossError(d))
}

// sendEvent puts ev on the Events() channel unless the producer closes
// first.
func (p *Producer) sendEvent(ev Event) {
	select {
	case p.events <- ev:
	case <-p.term:
	}
}

// Events returns the Events channel (read): delivery reports (*Message),
// Error events and *Stats.
func (p *Producer) Events() chan Event { return p.events }

// ProduceChannel returns the produce *Message channel (write).
//
// Deprecated: ProduceChannel (channel based producer) is deprecated in
// favour of Produce(), as in confluent-kafka-go. A message sent on it is
// produced as with Produce, waiting while the queue is full; one that
// cannot be produced comes back on Events() with TopicPartition.Error set.
func (p *Producer) ProduceChannel() chan *Message { return p.produceChannel }

func (p *Producer) channelProducer() {
	for m := range p.produceChannel {
		if err := p.produce(m, nil, true); err != nil {
			if m != nil {
				m.TopicPartition.Error = err
				p.sendEvent(m)
			}
		}
	}
}

// Len returns the number of messages and requests waiting to be
// transmitted to the broker as well as delivery reports queued for the
// application: messages accepted by Produce whose delivery report has not
// been taken in hand for delivery yet, plus the events waiting in the
// Events() channel and the messages waiting in ProduceChannel(). As with
// confluent-kafka-go, whose poller holds the report it is delivering, the
// one report being handed to a channel is not counted: an application
// that has just received a report never sees it in Len. Flush waits for
// that report too.
func (p *Producer) Len() int {
	return int(p.queued.Load()) + len(p.events) + len(p.produceChannel)
}

// outstanding is Len plus the report being handed over. The order of the
// reads matters: delivered adds to handing, takes from queued, sends, then
// takes from handing; read queued, handing, the channel, a report counts
// in at least one of them until the application has it.
func (p *Producer) outstanding() int {
	q := p.queued.Load()
	h := p.handing.Load()
	return int(q+h) + len(p.events) + len(p.produceChannel)
}

// Flush and wait for outstanding messages and requests to complete
// delivery, including the application reading its events: it runs until
// Len() reaches zero and no report is being handed over, or timeoutMs
// passes, sending lingering batches at once. Returns the number of
// outstanding events still un-flushed (Len() and the report being handed
// over).
//
// Inside an open transaction (transactional.id) it returns 0 once every
// message of the transaction produced so far is acknowledged by its
// leader (written, not yet committed), as librdkafka's flush does there;
// their delivery reports come with CommitTransaction or AbortTransaction.
// If timeoutMs passes first it returns the outstanding events.
func (p *Producer) Flush(timeoutMs int) int {
	end := time.Now().Add(time.Duration(timeoutMs) * time.Millisecond)
	if p.transactional && p.txnOpen.Load() && !p.IsClosed() {
		// Inside a transaction: every message acknowledged by its
		// leader, as librdkafka flushes; the reports come with the
		// commit or the abort.
		ctx, cancel := context.WithDeadline(context.Background(), end)
		err := p.c.Flush(ctx)
		cancel()
		if err == nil {
			return 0
		}
		return p.outstanding()
	}
	for {
		n := p.outstanding()
		if n == 0 {
			return 0
		}
		remain := time.Until(end)
		if remain <= 0 || p.IsClosed() {
			return n
		}
		ctx, cancel := context.WithTimeout(context.Background(), min(remain, 100*time.Millisecond))
		err := p.c.Flush(ctx)
		cancel()
		if err == nil && p.outstanding() > 0 {
			// The client has nothing left: what remains are reports
			// waiting to be handed over or read.
			time.Sleep(min(time.Until(end), time.Millisecond))
		}
	}
}

// Close a Producer instance. As with confluent-kafka-go it does not wait
// for outstanding messages: call Flush first. Messages still outstanding
// fail (client.ErrClosed) without a delivery report; the Events() channel
// is closed. The Producer object or its channels are no longer usable
// after this call. No goroutine of the producer outlives Close.
func (p *Producer) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	if p.oauth != nil {
		p.oauth.close() // no refresh event after this
	}
	close(p.term)
	p.cancel()
	p.producing.Wait()
	close(p.produceChannel)
	p.wg.Wait()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // outstanding messages are dropped at once, as librdkafka's destroy purges them
	_ = p.c.Close(ctx)
	close(p.events)
	if p.ownLogs {
		close(p.logs)
	}
}

// GetFatalError returns an Error object if the client instance has raised a
// fatal error, else nil. rollsafe's idempotent producer never raises one of
// its own: the idempotence failures librdkafka treats as fatal
// (OUT_OF_ORDER_SEQUENCE_NUMBER "sequence desynchronization",
// UNKNOWN_PRODUCER_ID on a retry) are recovered from, losing and
// duplicating nothing. A transactional producer is fatal once a
// transaction call has returned a fatal Error (ErrFenced…): then it returns
// that Error; TestFatalError makes any producer fatal (IsFatal true, the
// code given to TestFatalError). After Close
// it returns ErrState, as confluent-kafka-go does.
func (p *Producer) GetFatalError() error {
	if p.IsClosed() {
		return newErrorFromString(ErrState, "Operation not allowed on closed client")
	}
	if fe := p.fatal.Load(); fe != nil {
		return *fe
	}
	return nil
}

// Purge flags, librdkafka's values (rd_kafka_purge).
const (
	// PurgeInFlight purges messages in-flight to or from the broker.
	// Purging these messages will void any future acknowledgements from
	// the broker, making it impossible for the application to know if
	// these messages were successfully delivered or not.
	PurgeInFlight = 0x2
	// PurgeQueue purges messages in internal queues.
	PurgeQueue = 0x1
	// PurgeNonBlocking does not wait for the purge to finish: Purge
	// returns at once and the delivery reports follow.
	PurgeNonBlocking = 0x4
)

// Purge messages currently handled by this producer instance.
//
// flags is a combination of PurgeQueue, PurgeInFlight and
// PurgeNonBlocking.
//
// The application will need to read the Events() channel (or the
// delivery channels given to Produce), or call Flush, after this call to
// serve delivery reports for the purged messages.
//
// Messages purged from internal queues fail with the delivery report error
// code set to ErrPurgeQueue (MsgStatusNotPersisted: certainly not in the
// log, client.ErrNotWritten), while purged messages that are in-flight to
// or from the broker will fail with the error code set to ErrPurgeInflight
// (MsgStatusPossiblyPersisted, client.ErrOutcomeUnknown) — or
// ErrPurgeQueue when every attempt of theirs was refused.
//
// The producer goes on after a purge: the partitions resume where they
// were, a sequence a purged message left open closed by a new epoch, as
// after a message timeout; nothing already delivered is written again.
//
// Returns nil on success, ErrInvalidArg if the purge flags are invalid or
// unknown, ErrState after Close.
func (p *Producer) Purge(flags int) error {
	if flags&^(PurgeQueue|PurgeInFlight|PurgeNonBlocking) != 0 {
		return newErrorFromString(ErrInvalidArg, fmt.Sprintf("Invalid purge flags 0x%x", flags))
	}
	var what client.PurgeFlags
	if flags&PurgeQueue != 0 {
		what |= client.PurgeQueued
	}
	if flags&PurgeInFlight != 0 {
		what |= client.PurgeInFlight
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return newErrorFromString(ErrState, "Operation not allowed on closed client")
	}
	if what == 0 {
		p.mu.Unlock()
		return nil
	}
	if flags&PurgeNonBlocking != 0 {
		p.wg.Add(1)
		p.mu.Unlock()
		go func() {
			defer p.wg.Done()
			_ = p.c.Purge(p.ctx, what)
		}()
		return nil
	}
	p.producing.Add(1) // Close waits for it
	p.mu.Unlock()
	defer p.producing.Done()
	if err := p.c.Purge(p.ctx, what); err != nil {
		return newErrorFromString(ErrState, err.Error())
	}
	return nil
}

// SetSaslCredentials sets the SASL credentials used for this producer. The
// new credentials will overwrite the old ones (which were set when creating
// the producer or by a previous call to SetSaslCredentials). The new
// credentials will be used the next time this producer needs to
// authenticate to a broker: a new connection, or a connection
// re-authenticating (connections.max.reauth.ms). This method will not
// disconnect existing broker connections that were established with the
// old credentials. This method applies only to the SASL PLAIN and SCRAM
// mechanisms: with another (or without SASL) it returns ErrInvalidArg.
// After Close it returns ErrState.
func (p *Producer) SetSaslCredentials(username, password string) error {
	if p.IsClosed() {
		return newErrorFromString(ErrState, "Operation not allowed on closed client")
	}
	if p.creds == nil {
		return newErrorFromString(ErrInvalidArg, "SASL credentials apply only to sasl.mechanisms PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 over sasl_plaintext or sasl_ssl")
	}
	p.creds.Set(username, password)
	return nil
}
