package activities

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
)

// TestFailureMessagesAreBounded (issue 37, item 2): an activity's failure
// reaches the workflow's history with at most MaxFailure bytes of message
// (cut on a character boundary and saying how much was left out), whatever
// an endpoint or a store said: a 3 MB error body would put the history past
// Temporal's 2 MiB payload limit.
func TestFailureMessagesAreBounded(t *testing.T) {
	// 23 bytes of prefix and 3,000,000 of body; the cut falls inside an é at
	// byte 8,192, so 8,191 bytes are kept and 3,000,023 - 8,191 = 2,991,832 left out.
	body := strings.Repeat("é", 1_500_000)
	err := temporalError(errors.New("llm doctor (HTTP 400): " + body))
	var app *temporal.ApplicationError
	require.ErrorAs(t, err, &app)
	msg := app.Message()
	require.LessOrEqual(t, len(msg), MaxFailure+50)
	require.True(t, strings.HasPrefix(msg, "llm doctor (HTTP 400): é"))
	require.True(t, strings.HasSuffix(msg, "... (2991832 more bytes left out)"), msg[len(msg)-60:])
	short := temporalError(errors.New("a short message"))
	require.ErrorAs(t, short, &app)
	require.Equal(t, "a short message", app.Message())
}
