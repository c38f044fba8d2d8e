package contract_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/contract"
)

// A stage evaluation's and a replay's run ID lead back to their stream.
func TestStreamOfRunID(t *testing.T) {
	for _, run := range []string{contract.StageEvalRunID("x-E1", 3), contract.ReplayRunID("x-E1", 4, 2), "x-E1"} {
		require.Equal(t, "x-E1", contract.StreamOfRunID(run), run)
	}
}

func TestValidateRunID(t *testing.T) {
	for _, ok := range []string{"good2", "e1-2026.11", "A_b.c-d", strings.Repeat("x", 64)} {
		require.NoError(t, contract.ValidateRunID(ok), ok)
	}
	const want = "a run ID takes 1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit (e.g. e1-2026.11)"
	for _, tc := range []struct{ id, err string }{
		{"a/b", `run ID "a/b" holds '/' at position 2: ` + want},
		{"x y", `run ID "x y" holds ' ' at position 2: ` + want},
		{"../../etc", `run ID "../../etc" holds '.' at position 1: ` + want},
		{"a/stream", `run ID "a/stream" holds '/' at position 2: ` + want},
		{"", "the run ID is empty: " + want},
		{"-r", `run ID "-r" holds '-' at position 1: ` + want},
		{"café", `run ID "café" holds 'é' at position 4: ` + want},
		{strings.Repeat("x", 65), `run ID "` + strings.Repeat("x", 65) + `" has 65 characters: ` + want},
	} {
		require.EqualError(t, contract.ValidateRunID(tc.id), tc.err)
	}
	err := contract.StreamSpec{RunID: "a/b", Corpus: "builtin:stream"}.WithDefaults().Validate()
	require.ErrorContains(t, err, `stream spec: run_id: run ID "a/b" holds '/'`)
}

// TestSpecNumbersAreChecked (issue 37, item 6): a stream's and an
// evaluation's numbers are refused outside their ranges, naming the key and
// the range, even when they reach a worker without the CLI's checks.
func TestSpecNumbersAreChecked(t *testing.T) {
	stream := func(mod func(*contract.StreamSpec)) error {
		s := contract.StreamSpec{RunID: "r", Corpus: "builtin:stream"}.WithDefaults()
		mod(&s)
		return s.Validate()
	}
	eval := func(mod func(*contract.EvalSpec)) error {
		e := contract.EvalSpec{RunID: "r/eval-s01", Corpus: "builtin:stream", CaseIDs: []string{"c"}, Kind: contract.KindStageEval}.WithDefaults()
		mod(&e)
		return e.Validate()
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"negative limit", stream(func(s *contract.StreamSpec) { s.Limit = -5 }), "stream spec: limit must be at least 0 and at most 1000000 (0: every case), got -5"},
		{"negative stage size", stream(func(s *contract.StreamSpec) { s.StageSize = -1 }),
			"stream spec: stage_size must be at least 1 and at most 100000 (0: the default, 50), got -1"},
		{"negative concurrency", stream(func(s *contract.StreamSpec) { s.EvalConcurrency = -2 }),
			"stream spec: eval_concurrency must be at least 1 and at most 256 (0: the default, 8), got -2"},
		{"negative timeout", stream(func(s *contract.StreamSpec) { s.ActivityTimeoutSeconds = -10 }),
			"stream spec: activity_timeout_seconds must be at least 1 and at most 86400 (0: the default, 120), got -10"},
		{"evaluation timeout", eval(func(e *contract.EvalSpec) { e.ActivityTimeoutSeconds = -10 }),
			"evaluation r/eval-s01: activity_timeout_seconds must be at least 1 and at most 86400 (0: the default, 120), got -10"},
		{"evaluation concurrency", eval(func(e *contract.EvalSpec) { e.Concurrency = 100000 }),
			"evaluation r/eval-s01: concurrency must be at least 1 and at most 256 (0: the default, 8), got 100000"},
	} {
		t.Run(tc.name, func(t *testing.T) { require.EqualError(t, tc.err, tc.want) })
	}
}

// TestStreamInputRefusesUnknownFields (issue 39 §5): a stream input with a
// key that is no field of the spec, as the Temporal CLI sends it, is refused
// at the start naming the key; the fields a spec has read as before; a
// stream that played episodes already is not refused halfway.
func TestStreamInputRefusesUnknownFields(t *testing.T) {
	var s contract.StreamSpec
	require.NoError(t, json.Unmarshal([]byte(`{"run_id":"r1","corpus":"builtin:stream","limit":100,"stage_size":25,"memory":"empty","rules":true,"rule_budgett":3}`), &s))
	require.Equal(t, []string{"rule_budgett", "rules"}, s.Unknown)
	require.Equal(t, 100, s.Limit)
	err := s.WithDefaults().Validate()
	require.ErrorContains(t, err, `stream spec: unknown field(s) "rule_budgett", "rules"; a stream spec's fields are `)
	require.ErrorContains(t, err, "corpus, ")

	s.State.Cursor = 5
	require.NoError(t, s.WithDefaults().Validate(), "a stream under way is not refused halfway")

	ok := contract.StreamSpec{RunID: "r1", Corpus: "builtin:stream", Limit: 4, StageSize: 2, Memory: contract.MemoryEmpty}.WithDefaults()
	b, err := json.Marshal(ok)
	require.NoError(t, err)
	var back contract.StreamSpec
	require.NoError(t, json.Unmarshal(b, &back))
	require.Empty(t, back.Unknown)
	require.Equal(t, ok, back)
	require.NoError(t, back.Validate())
}

// TestUnknownFieldsSurvivePassingOn: the workflow hands its spec to the
// activity that checks it, encoded again: the list of unknown keys goes
// with it.
func TestUnknownFieldsSurvivePassingOn(t *testing.T) {
	var s contract.StreamSpec
	require.NoError(t, json.Unmarshal([]byte(`{"run_id":"r1","corpus":"builtin:stream","rules":true}`), &s))
	b, err := json.Marshal(s)
	require.NoError(t, err)
	var again contract.StreamSpec
	require.NoError(t, json.Unmarshal(b, &again))
	require.Equal(t, []string{"rules"}, again.Unknown)
}
