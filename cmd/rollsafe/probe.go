package main

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// errNotKafka is wrapped by the probe's diagnoses: what answered on a
// bootstrap address is not the Kafka listener the flags describe.
var errNotKafka = errors.New("not the Kafka listener the flags describe")

// probe checks, before any line is read, that the bootstrap brokers answer
// as Kafka listeners of the kind the flags describe: each is dialled (with
// TLS when tc is set) and asked ApiVersions, then, without SASL, Metadata
// (a SASL listener closes the connection on it). It returns nil when one
// broker answers, or when none could be connected to (the producer then
// retries them as usual); otherwise the diagnosis of the first broker,
// wrapping errNotKafka: a listener that accepts the connection and answers
// nothing within wait, a TLS answer to plaintext, a connection closed on
// the first requests, a TLS handshake that fails.
func probe(ctx context.Context, brokers []string, tc *tls.Config, sasl bool, wait time.Duration) error {
	errs := make([]error, len(brokers))
	var wg sync.WaitGroup
	for i, addr := range brokers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = probeOne(ctx, addr, tc, sasl, wait)
		}()
	}
	wg.Wait()
	var diagnosis error
	for _, err := range errs {
		switch {
		case err == nil:
			return nil
		case errors.Is(err, errNotKafka) && diagnosis == nil:
			diagnosis = err
		}
	}
	return diagnosis
}

// errUnreachable: the address could not be connected to, which says
// nothing about what listens there.
var errUnreachable = errors.New("unreachable")

func probeOne(ctx context.Context, addr string, tc *tls.Config, sasl bool, wait time.Duration) (err error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	defer func() {
		if parent.Err() != nil {
			err = fmt.Errorf("%w: %w", errUnreachable, parent.Err()) // a signal stopped the probe: no diagnosis
		}
	}()
	var d net.Dialer
	raw, derr := d.DialContext(ctx, "tcp", addr)
	if derr != nil {
		return fmt.Errorf("%w: %v", errUnreachable, derr)
	}
	defer raw.Close()
	stop := context.AfterFunc(ctx, func() { raw.SetDeadline(time.Now()) }) // a signal or wait ends the probe
	defer stop()
	conn := raw
	if tc != nil {
		cfg := tc.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName, _, _ = net.SplitHostPort(addr)
		}
		tconn := tls.Client(raw, cfg)
		if err := tconn.HandshakeContext(ctx); err != nil {
			var verr *tls.CertificateVerificationError
			switch {
			case errors.As(err, &verr):
				return nil // a TLS listener: the producer reports the certificate problem
			case timedOut(ctx, err):
				return fmt.Errorf("%w: %s accepted the connection but completed no TLS handshake within %v: is this a plaintext listener? drop the -tls-* flags", errNotKafka, addr, wait)
			}
			return fmt.Errorf("%w: TLS handshake with %s failed (%v): is this a plaintext listener? drop the -tls-* flags", errNotKafka, addr, err)
		}
		conn = tconn
	}
	hint := "is this a TLS or SASL listener? try -tls-ca (or -tls-insecure-skip-verify) / -sasl-mechanism"
	if tc != nil {
		hint = "is this a SASL listener? try -sasl-mechanism"
	}
	// ApiVersions v0: every Kafka listener answers it, SASL ones before
	// authentication too.
	if err := probeRequest(conn, &kmsg.ApiVersionsRequest{Version: 0}, 1); err != nil {
		return fmt.Errorf("%w: %s: sending ApiVersions: %v", errUnreachable, addr, err)
	}
	switch head, err := probeAnswer(conn, 1); {
	case err == nil:
	case tc == nil && looksTLS(head):
		return fmt.Errorf("%w: %s answered with TLS to a plaintext ApiVersions request: %s", errNotKafka, addr, hint)
	case timedOut(ctx, err) && len(head) == 0:
		return fmt.Errorf("%w: %s accepted the connection but answered nothing to an ApiVersions request within %v: not a Kafka listener, or a stalled one", errNotKafka, addr, wait)
	case closed(err):
		return fmt.Errorf("%w: %s closed the connection on an ApiVersions request without answering: %s", errNotKafka, addr, hint)
	default:
		return fmt.Errorf("%w: %s did not answer ApiVersions as Kafka does (%v): %s", errNotKafka, addr, err, hint)
	}
	if sasl {
		return nil // before authentication, nothing else is served
	}
	// Metadata v0 for no topic in particular: a SASL listener closes the
	// connection on any request before authentication.
	if err := probeRequest(conn, &kmsg.MetadataRequest{Version: 0}, 2); err != nil {
		return fmt.Errorf("%w: %s: sending Metadata: %v", errUnreachable, addr, err)
	}
	switch _, err := probeAnswer(conn, 2); {
	case err == nil:
		return nil
	case timedOut(ctx, err):
		return fmt.Errorf("%w: %s answered ApiVersions but nothing to a Metadata request within %v: a stalled broker", errNotKafka, addr, wait)
	case closed(err):
		return fmt.Errorf("%w: %s closed the connection on a Metadata request sent without authentication: is this a SASL listener? try -sasl-mechanism", errNotKafka, addr)
	default:
		return fmt.Errorf("%w: %s did not answer Metadata as Kafka does (%v)", errNotKafka, addr, err)
	}
}

// probeRequest writes req at its version, with correlation id corr.
func probeRequest(w io.Writer, req kmsg.Request, corr int32) error {
	_, err := w.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("rollsafe-probe")).AppendRequest(nil, req, corr))
	return err
}

// probeAnswer reads one response and checks its correlation id; head is
// what was read of its first 8 bytes.
func probeAnswer(r io.Reader, correlation int32) (head []byte, err error) {
	buf := make([]byte, 8)
	n, err := io.ReadFull(r, buf)
	head = buf[:n]
	if err != nil {
		return head, err
	}
	size := binary.BigEndian.Uint32(buf)
	if size < 4 || size > 64<<20 {
		return head, fmt.Errorf("a response size of %d bytes", size)
	}
	if got := int32(binary.BigEndian.Uint32(buf[4:])); got != correlation {
		return head, fmt.Errorf("correlation id %d, want %d", got, correlation)
	}
	_, err = io.CopyN(io.Discard, r, int64(size-4))
	return head, err
}

// looksTLS: a TLS record (alert 21 or handshake 22, version 3.x) where a
// Kafka response size would be.
func looksTLS(head []byte) bool {
	return len(head) >= 2 && (head[0] == 21 || head[0] == 22) && head[1] == 3
}

func timedOut(ctx context.Context, err error) bool {
	var ne net.Error
	return errors.Is(ctx.Err(), context.DeadlineExceeded) && (errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout())
}

func closed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		strings.Contains(err.Error(), "connection reset")
}
