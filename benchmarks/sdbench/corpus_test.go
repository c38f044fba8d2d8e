package sdbench_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/bench/benchtest"
	"github.com/clinevo/clinevo/benchmarks/sdbench"
)

// TestCorpus: the built-in splits load by name, have the paper's case shape
// (an abstract, the full record, a final diagnosis), are deterministic by
// seed, and the held-out split shows only conditions the stream never does.
func TestCorpus(t *testing.T) {
	stream, err := benchtest.Library(sdbench.Benchmark{}).Load("builtin:sdbench@7")
	require.NoError(t, err)
	held, err := benchtest.Library(sdbench.Benchmark{}).Load("builtin:sdbench-heldout@7")
	require.NoError(t, err)
	require.Len(t, stream.Cases, sdbench.StreamSize)
	require.Len(t, held.Cases, sdbench.HeldOutSize)
	again, err := sdbench.Generate("sdbench", 7)
	require.NoError(t, err)
	require.Equal(t, stream.Cases, again, "deterministic by seed")
	other, err := sdbench.Generate("sdbench", 8)
	require.NoError(t, err)
	require.NotEqual(t, stream.Cases[0].Patient.OpeningComplaint, other[0].Patient.OpeningComplaint)

	heldConds := sdbench.HeldOutConditions()
	require.NotEmpty(t, heldConds)
	streamConds := map[string]bool{}
	for _, c := range stream.Cases {
		require.NotEmpty(t, c.Patient.OpeningComplaint)
		require.NotEmpty(t, sdbench.RecordOf(&c).FullCase)
		require.NotEmpty(t, c.Manager.Diagnosis.Name)
		require.Empty(t, c.Exam.Catalog, "no test list is shown")
		require.NoError(t, sdbench.Benchmark{}.ValidateCase(&c))
		streamConds[c.Condition] = true
		require.False(t, slices.Contains(heldConds, c.Condition), "%s: a held-out condition in the stream", c.ID)
	}
	for _, c := range held.Cases {
		require.True(t, slices.Contains(heldConds, c.Condition), "%s", c.ID)
		require.False(t, streamConds[c.Condition])
	}
	require.Equal(t, 5, stream.Cases[len(stream.Cases)-1].Meta.Stage)
}
