package client

import (
	"context"
	"errors"
	"strings"

	"github.com/rollsafe/rollsafe/batching"
	"github.com/rollsafe/rollsafe/idempotence"
)

// multiError joins errors on one line ("a; b"), unlike errors.Join, whose
// newlines break log lines and the CLI's one-failure-per-line output.
// errors.Is and errors.As see every joined error.
type multiError []error

func (m multiError) Error() string {
	var b strings.Builder
	for i, e := range m {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

func (m multiError) Unwrap() []error { return m }

// joinErrors is errors.Join on one line: nil errors are dropped, nil is
// returned for none, and a single error is returned as is.
func joinErrors(errs ...error) error {
	var out multiError
	for _, e := range errs {
		if e != nil {
			out = append(out, e)
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return out
}

// userError is the error a record's callback receives: the producer's
// internal error rewritten as one line without internal package names,
// still matching (errors.Is, errors.As) everything the original matched.
type userError struct {
	msg string
	err error
}

func (e *userError) Error() string { return e.msg }
func (e *userError) Unwrap() error { return e.err }

// phrases rewrites the texts of errors from rollsafe's internal packages
// into what they mean for the record. Longer texts come first, so that
// a combination is rewritten as a whole.
var phrases = strings.NewReplacer(
	idempotence.ErrDeliveryTimeout.Error()+": "+idempotence.ErrNotWritten.Error(),
	"delivery timeout passed before the record was written (it is not in the log)",
	idempotence.ErrDeliveryTimeout.Error()+": "+idempotence.ErrOutcomeUnknown.Error(),
	"delivery timeout passed with the record's outcome unknown (it may be in the log)",
	idempotence.ErrNotWritten.Error(), "not written (not in the log)",
	idempotence.ErrOutcomeUnknown.Error(), "outcome unknown (the record may be in the log)",
	idempotence.ErrDeliveryTimeout.Error(), "delivery timeout passed",
	idempotence.ErrPartitionStopped.Error(), "partition stopped after data loss",
	idempotence.ErrDataLoss.Error(), "acknowledged records lost from the log",
	batching.ErrBufferFull.Error(), "buffer full",
	"\r\n", "; ",
	"\n", "; ",
	"idempotence: ", "",
	"batching: ", "",
	"protocol: ", "",
	"client: ", "",
)

// publicError returns err as a user sees it: prefixed "rollsafe: ", on one
// line, without internal package prefixes. nil stays nil.
func publicError(err error) error {
	if err == nil {
		return nil
	}
	var ue *userError
	if errors.As(err, &ue) && ue == err {
		return err
	}
	msg := phrases.Replace(err.Error())
	msg = strings.ReplaceAll(msg, "rollsafe: ", "")
	return &userError{msg: "rollsafe: " + msg, err: err}
}

// notWritten marks err as certainly not written (unless it already says
// so): the record never left the producer.
func notWritten(err error) error {
	if errors.Is(err, ErrNotWritten) || errors.Is(err, ErrOutcomeUnknown) {
		return err
	}
	return &wrapped{err: err, also: ErrNotWritten}
}

// wrapped is err that also matches also, with err's text.
type wrapped struct {
	err, also error
}

func (w *wrapped) Error() string   { return w.err.Error() + ": " + w.also.Error() }
func (w *wrapped) Unwrap() []error { return []error{w.err, w.also} }

// matching is err that also matches also, with err's text alone (it says
// what also would).
type matching struct {
	err, also error
}

func (m *matching) Error() string   { return m.err.Error() }
func (m *matching) Unwrap() []error { return []error{m.err, m.also} }

// contextError is a record refused because its context ended before the
// producer accepted it.
func contextError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return notWritten(&wrapped{err: errRecordContext, also: err})
	}
	return notWritten(err)
}

var errRecordContext = errors.New("context ended before the record was accepted")
