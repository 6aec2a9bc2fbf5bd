package kafka

import (
	"context"
	"errors"

	"github.com/rollsafe/rollsafe/client"
)

// txnErrorRow is how a transaction call's failure reaches a
// confluent-kafka-go program: the code and flags librdkafka's
// rd_kafka_error_t would carry for the same situation.
type txnErrorRow struct {
	match            func(error) bool
	code             ErrorCode
	fatal            bool
	retriable        bool
	txnRequiresAbort bool
}

func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

// txnErrors maps the errors of client.Producer's transaction calls to
// librdkafka's (rdkafka.h, "Transactional producer API"; rdkafka_txnmgr.c),
// first match wins:
//
//	client error                           Code              IsFatal IsRetriable TxnRequiresAbort
//	ErrFenced (with ErrTxnFatal)           ErrFenced (-144)  true    false       false
//	ErrTxnFatal                            ErrFatal (-150)   true    false       false
//	ErrTxnAbortable                        ErrFail (-196)    false   false       true
//	ErrNotTransactional                    ErrNotConfigured  false   false       false
//	ErrTxnState (ErrNoTransaction too)     ErrState (-172)   false   false       false
//	context deadline or cancel (the call   ErrTimedOut       false   true        false
//	goes on: call it again to wait for it) (-185, IsTimeout)
//	ErrClosed                              ErrState (-172)   false   false       false
//	anything else                          ErrFail (-196)    false   false       false
//
// librdkafka normalises fencing (PRODUCER_FENCED, INVALID_PRODUCER_EPOCH)
// to ERR__FENCED and raises it as a fatal error; its fatal and abortable
// errors otherwise carry the broker's or the failed message's code, which
// rollsafe's client names only in the error text: here they are ErrFatal
// and ErrFail, the text saying which code was answered (a failed message's
// own code is in its delivery report). A call the transaction's state does
// not allow is ERR__STATE, and on a producer without transactional.id
// ERR__NOT_CONFIGURED, as librdkafka returns them. A fatal error is also
// raised on the producer (an Error event, GetFatalError), as librdkafka's
// error_cb does.
var txnErrors = []txnErrorRow{
	{match: is(client.ErrFenced), code: ErrFenced, fatal: true},
	{match: is(client.ErrTxnFatal), code: ErrFatal, fatal: true},
	{match: is(client.ErrTxnAbortable), code: ErrFail, txnRequiresAbort: true},
	{match: is(client.ErrNotTransactional), code: ErrNotConfigured},
	{match: is(client.ErrTxnState), code: ErrState},
	{match: func(err error) bool {
		return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
	}, code: ErrTimedOut, retriable: true},
	{match: is(client.ErrClosed), code: ErrState},
	{match: func(error) bool { return true }, code: ErrFail},
}

// txnError turns a transaction call's error into the Error a
// confluent-kafka-go program checks (see txnErrors). err is not nil.
func txnError(err error) Error {
	for _, r := range txnErrors {
		if r.match(err) {
			return Error{code: r.code, str: err.Error(), fatal: r.fatal, retriable: r.retriable, txnRequiresAbort: r.txnRequiresAbort, err: err}
		}
	}
	panic("unreachable: txnErrors ends with a catch-all row")
}
