// Package kafkaerr is rollsafe's one table of Kafka error codes: for each
// code a broker can answer, its Kafka name, whether Kafka marks it
// retriable, whether a failed produce's records are appended, not appended
// or maybe appended, what the idempotent producer does with the batch, and
// whether the partition's leader must be looked up again. Every other
// package (protocol, idempotence, client, sim, confluent) asks this table
// and never decides by a code's number.
//
// It also names the one failure that is not a Kafka code: Transport, the
// answer that never came (the connection failed, the request was never
// written, or the response lacked the partition). Its value lies outside
// int16, so no broker's answer can be taken for it: a broker's -1 is
// UNKNOWN_SERVER_ERROR.
//
// The package is public, not internal, because idempotence — a public
// package — takes a Code in every Answer and gives one in every CodeError:
// a caller driving the idempotence core must be able to name the codes and
// Transport. It imports nothing outside the standard library (strconv),
// so the core stays free of the network code.
//
// docs/architecture.md places it in the import graph; docs/guarantees.md
// says what each outcome means to a caller.
package kafkaerr
