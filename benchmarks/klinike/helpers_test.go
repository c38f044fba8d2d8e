package klinike_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/klinike"
	"github.com/clinevo/clinevo/clinic"
)

// sandboxOf is a task's sandbox.
func sandboxOf(t *testing.T, c *clinic.Case) *klinike.Sandbox {
	t.Helper()
	sb, err := klinike.SandboxOf(c)
	require.NoError(t, err)
	return sb
}

// keyOf is a task's tool key.
func keyOf(t *testing.T, c *clinic.Case) *klinike.ToolKey {
	t.Helper()
	k, err := klinike.ToolKeyOf(c)
	require.NoError(t, err)
	return k
}

// callOf is an event's tool call.
func callOf(ev clinic.Event) klinike.CallFields { return klinike.CallOf(ev.Ext) }

// toolEvent is an event of a tool call.
func toolEvent(ev clinic.Event, tool, args string) clinic.Event {
	ev.Action = klinike.ToolCall
	ev.Ext = klinike.WithCall(ev.Ext, klinike.CallFields{Tool: tool, Arguments: json.RawMessage(args)})
	return ev
}
