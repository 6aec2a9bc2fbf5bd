package kafka

import (
	"context"
	"errors"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/protocol"
)

// txnErrorRow is how a transaction call's failure reaches a
// confluent-kafka-go program: the code and flags librdkafka's
// rd_kafka_error_t would carry for the same situation.
type txnErrorRow struct {
	match            func(error) bool
	code             ErrorCode
	brokerCode       bool // the broker's code that caused the error, if any, instead of code
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
//	client error                           Code                IsFatal IsRetriable TxnRequiresAbort
//	ErrFenced (with ErrTxnFatal)           ErrFenced (-144)    true    false       false
//	ErrTxnFatal                            the broker's code,  true    false       false
//	                                       else ErrFatal (-150)
//	ErrTxnAbortable (also BeginTransaction the broker's code,  false   false       true
//	before the abort)                      else ErrFail (-196)
//	ErrNotTransactional                    ErrNotConfigured    false   false       false
//	ErrTxnInProgress (another call is      ErrConflict (-173)  false   true        false
//	under way)
//	ErrTxnState (ErrNoTransaction too)     ErrState (-172)     false   false       false
//	context deadline or cancel (the call   ErrTimedOut         false   true        false
//	goes on: call it again to wait for it) (-185, IsTimeout)
//	ErrClosed                              ErrState (-172)     false   false       false
//	anything else                          ErrFail (-196)      false   false       false
//
// librdkafka normalises fencing (PRODUCER_FENCED, INVALID_PRODUCER_EPOCH)
// to ERR__FENCED and raises it as a fatal error; its fatal and abortable
// errors otherwise carry the code that caused them: the broker's, found
// here in the client's error (a *protocol.KafkaError; librdkafka's
// ErrorCode values are Kafka's codes for broker errors). An error no
// broker code caused (a message's delivery timeout, acknowledged messages
// lost) is ErrFatal or ErrFail, its text saying why. A call while another
// is under way is ERR__CONFLICT, retriable, as rd_kafka_txn_curr_api_begin
// answers; BeginTransaction while the transaction must be aborted returns
// the abortable error, as rd_kafka_begin_transaction does. A call the
// transaction's state does not allow is ERR__STATE, and on a producer
// without transactional.id ERR__NOT_CONFIGURED, as librdkafka returns
// them. A fatal error is also raised on the producer (an Error event,
// GetFatalError), as librdkafka's error_cb does.
var txnErrors = []txnErrorRow{
	{match: is(client.ErrFenced), code: ErrFenced, fatal: true},
	{match: is(client.ErrTxnFatal), code: ErrFatal, brokerCode: true, fatal: true},
	{match: is(client.ErrTxnAbortable), code: ErrFail, brokerCode: true, txnRequiresAbort: true},
	{match: is(client.ErrNotTransactional), code: ErrNotConfigured},
	{match: is(client.ErrTxnInProgress), code: ErrConflict, retriable: true},
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
			code := r.code
			var ke *protocol.KafkaError
			if r.brokerCode && errors.As(err, &ke) {
				code = ErrorCode(ke.Code)
			}
			return Error{code: code, str: err.Error(), fatal: r.fatal, retriable: r.retriable, txnRequiresAbort: r.txnRequiresAbort, err: err}
		}
	}
	panic("unreachable: txnErrors ends with a catch-all row")
}
