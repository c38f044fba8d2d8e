package contract

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCaseOrder: seed 0 is the published order; any other seed a
// permutation, the same for the same seed and different for another; a
// block keeps its own cases.
func TestCaseOrder(t *testing.T) {
	require.Equal(t, []int{0, 1, 2, 3, 4}, CaseOrder(5, 0, 0))
	for _, seed := range []uint64{1, 2, 99} {
		o := CaseOrder(100, seed, 0)
		require.ElementsMatch(t, CaseOrder(100, 0, 0), o, "a permutation of the same cases")
		require.Equal(t, o, CaseOrder(100, seed, 0), "the same seed, the same order")
		require.NotEqual(t, CaseOrder(100, 0, 0), o)
	}
	require.NotEqual(t, CaseOrder(100, 1, 0), CaseOrder(100, 2, 0))
	// Blocks of 10 over 25 cases: 0–9, 10–19 and 20–24 each keep their cases.
	o := CaseOrder(25, 3, 10)
	for lo := 0; lo < 25; lo += 10 {
		hi := min(lo+10, 25)
		block := slices.Clone(o[lo:hi])
		slices.Sort(block)
		for i, v := range block {
			require.Equal(t, lo+i, v, "block %d–%d", lo, hi-1)
		}
	}
	// The order of a seed is fixed across releases (a restart of a stream
	// plays the order it started with): math/rand/v2's PCG and Perm are
	// specified to stay the same; this pins it.
	require.Equal(t, []int{2, 5, 0, 4, 6, 7, 1, 3}, CaseOrder(8, 1, 0))
}

func orderingsSpec() ExperimentSpec {
	return ExperimentSpec{Name: "x", Corpus: "builtin:stream", HeldOut: "builtin:heldout", StageSize: 10, UpdateStages: []int{2},
		Orderings: 3, Conditions: []ConditionSpec{
			{Name: "E0", Kind: KindStream, Memory: MemoryDisabled},
			{Name: "E1", Label: "with memory", Kind: KindStream},
			{Name: "H0", Kind: KindHeldOut},
			{Name: "H1", Kind: KindHeldOut, From: "E1", PairedWith: "H0"},
			{Name: "G1", Kind: KindStream, Corpus: "builtin:update", Memory: MemoryCarry, CarryFrom: "E1"},
		}}
}

// TestExpand: streams and what depends on them repeat per ordering, each
// repeat reading its own ordering's streams; a held-out condition that
// reads none is played once; the update stream is permuted within stages.
func TestExpand(t *testing.T) {
	e := orderingsSpec()
	require.NoError(t, e.Validate())
	x := e.Expand()
	var names []string
	for _, c := range x.Conditions {
		names = append(names, c.Name)
	}
	require.Equal(t, []string{"E0", "E1", "H0", "H1", "G1", "E0.o2", "E1.o2", "H1.o2", "G1.o2", "E0.o3", "E1.o3", "H1.o3", "G1.o3"}, names)
	byName := map[string]ConditionSpec{}
	for _, c := range x.Conditions {
		byName[c.Name] = c
	}
	require.Equal(t, ConditionSpec{Name: "E1", Label: "with memory", Kind: KindStream, Ordering: 1}, byName["E1"])
	require.Equal(t, ConditionSpec{Name: "E1.o3", Label: "with memory (ordering 3)", Kind: KindStream, Ordering: 3, Replicates: "E1", Order: 2},
		byName["E1.o3"])
	require.Equal(t, ConditionSpec{Name: "H1.o2", Kind: KindHeldOut, From: "E1.o2", PairedWith: "H0", Ordering: 2, Replicates: "H1"}, byName["H1.o2"])
	require.Equal(t, 0, byName["H0"].Ordering, "H0 reads no stream: played once")
	g := byName["G1.o2"]
	require.Equal(t, []any{"E1.o2", uint64(1), 10}, []any{g.CarryFrom, g.Order, g.OrderBlock})
	require.Equal(t, x, x.Expand(), "Expand of an expanded spec changes nothing")
	require.NoError(t, x.Validate())

	one := orderingsSpec()
	one.Orderings = 1
	require.Equal(t, one, one.Expand())
	e.Seeds = []uint64{11, 12}
	require.Equal(t, uint64(12), e.Expand().Conditions[9].Order)
}

func TestOrderingsRefused(t *testing.T) {
	for name, c := range map[string]struct {
		change func(*ExperimentSpec)
		want   string
	}{
		"too many":      {func(e *ExperimentSpec) { e.Orderings = 21 }, "orderings"},
		"seeds count":   {func(e *ExperimentSpec) { e.Seeds = []uint64{5} }, "seeds: 1 given, want one per ordering after the first (orderings 3: 2)"},
		"seed zero":     {func(e *ExperimentSpec) { e.Seeds = []uint64{5, 0} }, "seeds[1]: 0 is the published order"},
		"seed repeated": {func(e *ExperimentSpec) { e.Seeds = []uint64{5, 5} }, "seeds[1]: 5 repeats seeds[0]"},
		"name of repeat": {func(e *ExperimentSpec) {
			e.Conditions = append(e.Conditions, ConditionSpec{Name: "E0.o2", Kind: KindHeldOut})
		}, "(E0.o2): duplicate condition name"},
		"run ID too long": {func(e *ExperimentSpec) { e.Conditions[0].Name = strings.Repeat("e", 61) }, ".o2"},
	} {
		t.Run(name, func(t *testing.T) {
			e := orderingsSpec()
			c.change(&e)
			require.ErrorContains(t, e.Validate(), c.want)
		})
	}
}
