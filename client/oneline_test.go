package client

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/idempotence"
)

// The errors the engine produces reach users as one sentence without
// internal package names, and still match every sentinel.
func TestPublicErrorIsOneCleanLine(t *testing.T) {
	timeout := fmt.Errorf("%w: %w", idempotence.ErrDeliveryTimeout, idempotence.ErrNotWritten)
	err := publicError(timeout)
	require.Equal(t, "rollsafe: delivery timeout passed before the record was written (it is not in the log)", err.Error())
	require.ErrorIs(t, err, ErrDeliveryTimeout)
	require.ErrorIs(t, err, ErrNotWritten)

	joined := publicError(errors.Join(ErrClosed, fmt.Errorf("protocol: dial a:1: refused\nprotocol: dial b:2: refused")))
	require.Equal(t, "rollsafe: producer closed; dial a:1: refused; dial b:2: refused", joined.Error())
	require.ErrorIs(t, joined, ErrClosed)

	one := joinErrors(errors.New("a"), nil, ErrClosed)
	require.Equal(t, "a; producer closed", one.Error())
	require.ErrorIs(t, one, ErrClosed)
	require.Nil(t, joinErrors(nil, nil))
	closed := publicError(fmt.Errorf("%w: %w", idempotence.ErrClosed, idempotence.ErrOutcomeUnknown))
	require.ErrorIs(t, closed, ErrOutcomeUnknown)
	require.ErrorIs(t, closed, ErrClosed)
	require.Equal(t, "rollsafe: producer closed: outcome unknown (the record may be in the log)", closed.Error())
	require.Nil(t, publicError(nil))
}
