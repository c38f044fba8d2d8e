package sdbench_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
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

// TestArenaCorpus: the DiagnosisArena splits hold the release's 915 cases
// once each, in its order; the held-out split is the last 169 ids (915 × 56
// / 304 = 168.6, the paper's share), so 746 play in the stream; every case
// has SDBench's shape, shows no test list, promises no complete record, and
// its abstract, history and examination never name the diagnosis.
func TestArenaCorpus(t *testing.T) {
	lib := benchtest.Library(sdbench.Benchmark{})
	stream, err := lib.Load("builtin:sdbench-arena")
	require.NoError(t, err)
	held, err := lib.Load("builtin:sdbench-arena-heldout@7")
	require.NoError(t, err)
	require.Equal(t, 169, sdbench.ArenaHeldOut)
	require.Len(t, stream.Cases, 746)
	require.Len(t, held.Cases, 169)
	all := append(slices.Clone(stream.Cases), held.Cases...)
	for i, c := range all {
		id := strconv.Itoa(i + 1)
		require.Equal(t, id, c.Provenance.SourceCaseID, "release order, the held-out ids last")
		require.Equal(t, fmt.Sprintf("sdbench-arena-%04d", i+1), c.ID)
		want := "sdbench-arena"
		if i >= 746 {
			want = "sdbench-arena-heldout"
		}
		require.Equal(t, want, c.Meta.Split, c.ID)
		require.NoError(t, sdbench.Benchmark{}.ValidateCase(&c))
		require.Empty(t, c.Exam.Catalog, c.ID)
		require.Empty(t, c.Manager.Distractors, c.ID)
		r := sdbench.RecordOf(&c)
		require.False(t, r.Complete, c.ID)
		before, _, ok := strings.Cut(r.FullCase, "Investigations:")
		require.True(t, ok, c.ID)
		require.Contains(t, before, c.Patient.OpeningComplaint, c.ID)
		require.NotContains(t, strings.ToLower(before), strings.ToLower(c.Manager.Diagnosis.Name), "%s: the leak guard keeps the diagnosis out of the history and examination", c.ID)
	}
	_, err = sdbench.Benchmark{}.Builtin("sdbench-arena-later", 2, 0)
	require.ErrorContains(t, err, "sdbench-arena-later")
}
