//go:build linux

package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/rollsafe/rollsafe/client"
)

// peerRec is one record a scenario hands a peer: its id goes first in the
// value ("id|" and 100 bytes), which is how the read back finds it.
type peerRec struct {
	id        string
	partition int32
}

// peerOpts are what a scenario changes in a peer's configuration.
type peerOpts struct {
	// requestTimeout, if set, is the peer's produce request timeout (the
	// zombie and blackhole scenarios use 3 s); zero keeps its default.
	requestTimeout time.Duration
}

// peerSession is one running producer of a scenario. Every outcome goes
// to the tally.
type peerSession interface {
	// send produces recs, each to its partition, without waiting.
	send(recs []peerRec)
	// finish stops taking records, waits (bounded by ctx) for every
	// outcome and closes the producer.
	finish(ctx context.Context) error
}

// realPeer is one client under test on the real cluster.
type realPeer struct {
	name string
	// start opens a producer to topic; an error means the peer cannot run.
	start func(ctx context.Context, addrs []string, topic string, o peerOpts, tl *tally) (peerSession, error)
}

var valuePad = bytes.Repeat([]byte("x"), 100)

func peerValue(id string) []byte { return append([]byte(id+"|"), valuePad...) }

func valueID(v []byte) string {
	id, _, _ := bytes.Cut(v, []byte("|"))
	return string(id)
}

// --- rollsafe ---

type rollsafeSession struct {
	p     *client.Producer
	topic string
	tl    *tally
	wg    sync.WaitGroup
	cb    func(*client.Record, error)
	trace *os.File // ROLLSAFE_TRACE, closed by finish
}

func startRollsafe(_ context.Context, addrs []string, topic string, o peerOpts, tl *tally) (peerSession, error) {
	opts := []client.Option{client.Brokers(addrs...), client.ClientID("bench-rollsafe")}
	if o.requestTimeout > 0 {
		opts = append(opts, client.RequestTimeout(o.requestTimeout))
	}
	var trace *os.File
	if dir := os.Getenv("ROLLSAFE_TRACE"); dir != "" {
		// rollsafe's transcript (every input of its state machine, every
		// decision, its logs) in DIR/<topic>.trace.
		f, err := os.Create(filepath.Join(dir, topic+".trace"))
		if err != nil {
			return nil, err
		}
		trace = f
		opts = append(opts, client.WithLogger(slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: client.LevelTrace}))))
	}
	p, err := client.NewProducer(opts...)
	if err != nil {
		return nil, err
	}
	s := &rollsafeSession{p: p, topic: topic, tl: tl, trace: trace}
	s.cb = func(r *client.Record, err error) {
		defer s.wg.Done()
		s.tl.outcome(r.Value, r.Partition, r.Offset, err)
	}
	return s, nil
}

func (s *rollsafeSession) send(recs []peerRec) {
	for _, r := range recs {
		s.wg.Add(1)
		s.p.Produce(context.Background(), &client.Record{Topic: s.topic, Partition: r.partition, HasPartition: true,
			Value: peerValue(r.id)}, s.cb)
	}
}

func (s *rollsafeSession) finish(ctx context.Context) error {
	err := s.p.Flush(ctx)
	if cerr := s.p.Close(ctx); err == nil {
		err = cerr
	}
	if s.trace != nil {
		_ = s.trace.Close()
	}
	return errors.Join(err, waitGroup(ctx, &s.wg))
}

// waitGroup waits for wg or ctx.
func waitGroup(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("outcomes still missing: %w", ctx.Err())
	}
}

// --- franz-go kgo ---

type kgoSession struct {
	cl      *kgo.Client
	topic   string
	tl      *tally
	wg      sync.WaitGroup
	promise func(*kgo.Record, error)
}

// kgoLogger sends kgo's warnings and errors to the tally's log.
type kgoLogger struct{ tl *tally }

func (l kgoLogger) Level() kgo.LogLevel { return kgo.LogLevelWarn }
func (l kgoLogger) Log(level kgo.LogLevel, msg string, kv ...any) {
	l.tl.log(fmt.Sprintf("%s %s %v", level, msg, kv))
}

func startKgo(_ context.Context, addrs []string, topic string, o peerOpts, tl *tally) (peerSession, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(addrs...), kgo.ClientID("bench-kgo"), kgo.DefaultProduceTopic(topic),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.WithLogger(kgoLogger{tl})}
	if o.requestTimeout > 0 {
		// kgo waits ProduceRequestTimeout plus RequestTimeoutOverhead for an answer.
		opts = append(opts, kgo.ProduceRequestTimeout(o.requestTimeout-time.Second), kgo.RequestTimeoutOverhead(time.Second))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	s := &kgoSession{cl: cl, topic: topic, tl: tl}
	s.promise = func(r *kgo.Record, err error) {
		defer s.wg.Done()
		s.tl.outcome(r.Value, r.Partition, r.Offset, err)
	}
	return s, nil
}

func (s *kgoSession) send(recs []peerRec) {
	for _, r := range recs {
		s.wg.Add(1)
		s.cl.Produce(context.Background(), &kgo.Record{Topic: s.topic, Partition: r.partition, Value: peerValue(r.id)}, s.promise)
	}
}

func (s *kgoSession) finish(ctx context.Context) error {
	err := s.cl.Flush(ctx)
	if err != nil {
		// Records still buffered fail with the context's error.
		s.cl.PurgeTopicsFromProducing(s.topic)
	}
	s.cl.Close()
	return errors.Join(err, waitGroup(ctx, &s.wg))
}

// --- IBM/sarama ---

type saramaSession struct {
	ap      sarama.AsyncProducer
	topic   string
	tl      *tally
	drained chan struct{}
}

func startSarama(_ context.Context, addrs []string, topic string, o peerOpts, tl *tally) (peerSession, error) {
	cfg := sarama.NewConfig()
	cfg.ClientID = "bench-sarama"
	cfg.Producer.Idempotent = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Net.MaxOpenRequests = 1 // sarama's idempotent producer requires it
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Producer.Return.Successes = true
	cfg.Producer.Return.Errors = true
	if o.requestTimeout > 0 {
		cfg.Producer.Timeout = o.requestTimeout
		cfg.Net.ReadTimeout = o.requestTimeout
	}
	ap, err := sarama.NewAsyncProducer(addrs, cfg)
	if err != nil {
		return nil, err
	}
	s := &saramaSession{ap: ap, topic: topic, tl: tl, drained: make(chan struct{})}
	go s.drain()
	return s, nil
}

func (s *saramaSession) drain() {
	defer close(s.drained)
	succ, errs := s.ap.Successes(), s.ap.Errors()
	for succ != nil || errs != nil {
		select {
		case m, ok := <-succ:
			if !ok {
				succ = nil
				continue
			}
			v, _ := m.Value.Encode()
			s.tl.ack(valueID(v), m.Partition, m.Offset)
		case e, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			v, _ := e.Msg.Value.Encode()
			s.tl.fail(valueID(v), e.Msg.Partition, e.Err.Error())
		}
	}
}

func (s *saramaSession) send(recs []peerRec) {
	for _, r := range recs {
		s.ap.Input() <- &sarama.ProducerMessage{Topic: s.topic, Partition: r.partition, Value: sarama.ByteEncoder(peerValue(r.id))}
	}
}

// finish closes the producer: AsyncClose flushes what is buffered and
// closes both channels once every record has its outcome, which drain
// reports (sarama's Close would read the channels itself).
func (s *saramaSession) finish(ctx context.Context) error {
	s.ap.AsyncClose()
	select {
	case <-s.drained:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("sarama close: %w", ctx.Err())
	}
}
