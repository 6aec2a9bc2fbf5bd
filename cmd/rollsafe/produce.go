package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/compress"
)

// produceSummary is the JSON line `rollsafe produce` ends its output with.
// Read counts input lines; Sent those handed to the producer; Failed those
// not acknowledged (refused, failed, or too large, which TooLarge counts
// again); Interrupted says a signal stopped the reading before the end of
// the input.
type produceSummary struct {
	Read           int64   `json:"read"`
	Sent           int64   `json:"sent"`
	Acked          int64   `json:"acked"`
	Failed         int64   `json:"failed"`
	TooLarge       int64   `json:"too_large"`
	Interrupted    bool    `json:"interrupted"`
	Retries        int64   `json:"retries"`
	EpochBumps     int64   `json:"epoch_bumps"`
	TailReads      int64   `json:"tail_reads"`
	DataLossEvents int64   `json:"data_loss_events"`
	Seconds        float64 `json:"seconds"`
}

// hooks returns the client.Hooks that count into h.
func (h *countingHooks) hooks() client.Hooks {
	return client.Hooks{BatchSent: h.BatchSent, EpochBumped: h.EpochBumped, TailRead: h.TailRead, DataLossDetected: h.DataLossDetected}
}

// countingHooks counts the producer's recovery work for the summaries of
// produce and demo.
type countingHooks struct {
	retries, bumps, tails, losses atomic.Int64
}

func (h *countingHooks) BatchSent(_ string, _ int32, _ int32, _ int, _ int, retry bool) {
	if retry {
		h.retries.Add(1)
	}
}
func (h *countingHooks) EpochBumped(string, int32, int64, int16) { h.bumps.Add(1) }
func (h *countingHooks) TailRead(string, int32, int64)           { h.tails.Add(1) }
func (h *countingHooks) DataLossDetected(client.DataLoss)        { h.losses.Add(1) }

// produceUsage is the first line of `rollsafe produce -h`.
const produceUsage = "usage: rollsafe produce -brokers host:port[,...] -topic T [flags] < lines"

// failedValueMax is how much of a failed record's value a failure line
// shows.
const failedValueMax = 128

// runProduce implements `rollsafe produce`; it returns the exit code: 0 when
// every input line was read and acknowledged, 1 when any was not (failed,
// too large, unresolved at the end, or not read because a signal stopped
// the command), 2 for usage errors.
func runProduce(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("produce", flag.ContinueOnError)
	fs.SetOutput(stderr)
	brokers := fs.String("brokers", "", "bootstrap brokers, host:port[,host:port...] (required)")
	topic := fs.String("topic", "", "topic to produce to (required)")
	partition := fs.Int("partition", -1, "partition to produce to (default: murmur2 of the key, or sticky)")
	keyDelim := fs.String("key-delim", "", "split each line into key<delim>value at the first delimiter")
	codecName := fs.String("compression", "gzip", "gzip|snappy|lz4|zstd|none")
	linger := fs.Duration("linger", 5*time.Millisecond, "how long a batch waits for more records")
	acks := fs.String("acks", "all", "all|1|0 (anything but all disables idempotence)")
	timeout := fs.Duration("delivery-timeout", 2*time.Minute, "delivery timeout per record")
	maxRecord := fs.Int("max-record-bytes", 1<<20, "largest record accepted, counted as Kafka's max.message.bytes counts it: the record batch holding it alone (61-byte header, record framing, key and value); larger lines fail before they are sent (counted in the summary)")
	stopTimeout := fs.Duration("stop-timeout", 10*time.Second, "after SIGINT/SIGTERM, how long buffered records get to be acknowledged before they fail")
	probeWait := fs.Duration("probe-timeout", 10*time.Second, "before reading, how long the bootstrap brokers get to answer ApiVersions (and, without SASL, Metadata) before the command stops saying what answered instead: silence, TLS, a closed connection (0: no probe)")
	sec := addSecurityFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), produceUsage)
		fmt.Fprintln(fs.Output(), "Each input line is one record. Prints \"failed <value>: <error>\" on stderr per record not acknowledged,")
		fmt.Fprintln(fs.Output(), "then a JSON summary on stdout; exits 0 only if every line was read and acknowledged.")
		fmt.Fprintln(fs.Output(), "SIGINT/SIGTERM stop the reading; buffered records get -stop-timeout; a second signal exits at once")
		fmt.Fprintln(fs.Output(), "(130 after SIGINT, 143 after SIGTERM), saying how many lines were read, acknowledged, failed and abandoned.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	usage := func(msg string) int {
		fmt.Fprintln(stderr, "rollsafe produce:", msg)
		fs.Usage()
		return 2
	}
	if *brokers == "" || *topic == "" || fs.NArg() != 0 {
		return usage("-brokers and -topic are required, and no positional arguments")
	}
	if *maxRecord <= 0 || *stopTimeout < 0 {
		return usage("-max-record-bytes must be positive and -stop-timeout not negative")
	}
	codec, err := compress.ParseCodec(*codecName)
	if err != nil {
		return usage(err.Error())
	}
	hooks := &countingHooks{}
	opts := []client.Option{
		client.Brokers(strings.Split(*brokers, ",")...),
		client.Compression(codec, compress.DefaultLevel),
		client.Linger(*linger),
		client.DeliveryTimeout(*timeout),
		client.MaxRecordBytes(*maxRecord),
		client.MaxBuffered(1<<20, max(64<<20, 2*int64(*maxRecord))),
		client.WithHooks(hooks.hooks()),
	}
	switch *acks {
	case "all", "-1":
	case "1", "0":
		n, _ := strconv.Atoi(*acks)
		opts = append(opts, client.Acks(int16(n)), client.DisableIdempotence())
	default:
		return usage(fmt.Sprintf("-acks %q: want all, 1 or 0", *acks))
	}
	secOpts, err := sec.options(os.LookupEnv)
	if err != nil {
		return usage(err.Error())
	}
	opts = append(opts, secOpts...)
	p, err := client.NewProducer(opts...)
	if err != nil {
		return usage(err.Error())
	}
	start := time.Now()
	var sum produceSummary
	if *probeWait > 0 {
		tc, _ := sec.tlsConfig() // checked by sec.options
		if err := probe(ctx, strings.Split(*brokers, ","), tc, sec.mechanism != "", *probeWait); err != nil {
			fmt.Fprintf(stderr, "rollsafe produce: nothing read or sent: %s\n", strings.TrimPrefix(err.Error(), errNotKafka.Error()+": "))
			closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			_ = p.Close(closeCtx)
			sum.Seconds = time.Since(start).Seconds()
			out, _ := json.Marshal(sum)
			fmt.Fprintln(stdout, string(out))
			return 1
		}
	}
	var mu sync.Mutex // guards stderr writes and sum's counts (the abandon report reads them)
	setAbandonReport(func(w io.Writer) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "rollsafe produce: second signal: exiting at once: %d lines read, %d acknowledged, %d failed, %d abandoned (sent, not yet acknowledged or failed: each may or may not be in the log)\n",
			sum.Read, sum.Acked, sum.Failed, sum.Sent-sum.Acked-(sum.Failed-sum.TooLarge))
	})
	defer setAbandonReport(nil)
	fail := func(value []byte, err error) {
		mu.Lock()
		defer mu.Unlock()
		sum.Failed++
		fmt.Fprintf(stderr, "failed %s: %v\n", shorten(value, failedValueMax), err)
	}
	done := func(r *client.Record, err error) {
		if err != nil {
			fail(r.Value, err)
			return
		}
		mu.Lock()
		sum.Acked++
		mu.Unlock()
	}

	// The input is read on its own goroutine, so that a signal stops the
	// command even while stdin stays open with nothing to read.
	lines := make(chan line, 64)
	readErr := make(chan error, 1)
	stopRead := make(chan struct{})
	go func() {
		defer close(lines)
		lr := newLineReader(stdin, *maxRecord)
		for {
			l, err := lr.next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr <- err
				}
				return
			}
			select {
			case lines <- l:
			case <-stopRead:
				return
			}
		}
	}()
	defer close(stopRead)
read:
	for {
		select {
		case <-ctx.Done():
			sum.Interrupted = true
			fmt.Fprintln(stderr, "rollsafe produce: interrupted: stopped reading; waiting up to", *stopTimeout, "for buffered records")
			break read
		case l, ok := <-lines:
			if !ok {
				break read
			}
			mu.Lock()
			sum.Read++
			mu.Unlock()
			if l.TooLarge {
				mu.Lock()
				sum.TooLarge++
				mu.Unlock()
				fail([]byte(fmt.Sprintf("<line %d of %d bytes>", sum.Read, l.Size)),
					fmt.Errorf("longer than -max-record-bytes %d: not sent", *maxRecord))
				continue
			}
			rec := &client.Record{Topic: *topic, Value: l.Value}
			if *keyDelim != "" {
				if k, v, ok := bytes.Cut(l.Value, []byte(*keyDelim)); ok {
					rec.Key, rec.Value = k, v
				}
			}
			if *partition >= 0 {
				rec.Partition, rec.HasPartition = int32(*partition), true
			}
			if n := batching.BatchOfOneLen(rec.Key, rec.Value, nil); n > *maxRecord {
				mu.Lock()
				sum.TooLarge++
				mu.Unlock()
				fail(rec.Value, fmt.Errorf("line %d: %d bytes as a record batch of its own (61-byte header and record framing included), above -max-record-bytes %d: not sent", sum.Read, n, *maxRecord))
				continue
			}
			mu.Lock()
			sum.Sent++
			mu.Unlock()
			// The command's context ends with a signal; a record already
			// read is still produced, and Close bounds it.
			p.Produce(context.WithoutCancel(ctx), rec, done)
		}
	}
	select {
	case err := <-readErr:
		fmt.Fprintln(stderr, "rollsafe produce: reading stdin:", err)
		sum.Interrupted = true
	default:
	}
	bound := *timeout + 10*time.Second
	if sum.Interrupted {
		bound = *stopTimeout
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := p.Close(closeCtx); err != nil {
		fmt.Fprintln(stderr, "rollsafe produce: close:", err)
	}
	mu.Lock()
	defer mu.Unlock()
	sum.Retries, sum.EpochBumps = hooks.retries.Load(), hooks.bumps.Load()
	sum.TailReads, sum.DataLossEvents = hooks.tails.Load(), hooks.losses.Load()
	sum.Seconds = time.Since(start).Seconds()
	out, _ := json.Marshal(sum)
	fmt.Fprintln(stdout, string(out))
	if sum.Acked != sum.Read || sum.Interrupted {
		return 1
	}
	return 0
}

// shorten returns v, or its first max bytes and how many were cut.
func shorten(v []byte, limit int) string {
	if len(v) <= limit {
		return string(v)
	}
	return fmt.Sprintf("%s... (%d more bytes cut)", v[:limit], len(v)-limit)
}
