package synth

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/textmatch"
)

// TestVersion3KeepsConditionsOutOfTheStream: the unseen conditions never
// appear in the stream, update or cross split; at least a third of the
// held-out cases are on them (V3HeldOutUnseen of HeldOutSize); the rest are
// new presentations of seen conditions, no opening repeating one the stream
// or update stream shows; every seen condition is in every stage.
func TestVersion3KeepsConditionsOutOfTheStream(t *testing.T) {
	for _, seed := range []uint64{7, 8} {
		v3, err := GenerateVersion(V3, seed)
		require.NoError(t, err)
		unseen := map[string]bool{}
		for _, k := range UnseenV3(seed) {
			unseen[k] = true
		}
		require.Len(t, unseen, V3UnseenConditions)
		require.Len(t, v3["stream"], StreamSize)
		require.Len(t, v3["update"], StreamSize)
		require.Len(t, v3["heldout"], HeldOutSize)
		require.Len(t, v3["cross"], CrossSize)
		openings := map[string]bool{}
		for _, split := range []string{"stream", "update", "cross"} {
			for _, c := range v3[split] {
				require.False(t, unseen[c.Condition], "seed %d: %s holds unseen %s", seed, c.ID, c.Condition)
				require.Equal(t, SourceV3, c.Provenance.Source)
				if split != "cross" {
					openings[textmatch.Normalize(c.Patient.OpeningComplaint)] = true
				}
			}
		}
		for s := 1; s <= StreamStages; s++ {
			in := map[string]bool{}
			for _, c := range v3["stream"][(s-1)*StageSize : s*StageSize] {
				in[c.Condition] = true
			}
			require.Len(t, in, len(conditions)-V3UnseenConditions, "stage %d holds every seen condition", s)
		}
		nUnseen, seenConds, unseenConds := 0, map[string]bool{}, map[string]bool{}
		for _, c := range v3["heldout"] {
			require.False(t, openings[textmatch.Normalize(c.Patient.OpeningComplaint)], "%s repeats a stream opening", c.ID)
			if unseen[c.Condition] {
				nUnseen++
				unseenConds[c.Condition] = true
			} else {
				seenConds[c.Condition] = true
			}
		}
		require.Equal(t, V3HeldOutUnseen, nUnseen)
		require.GreaterOrEqual(t, 3*nUnseen, HeldOutSize, "at least a third unseen")
		require.Len(t, unseenConds, V3UnseenConditions, "every unseen condition is tested")
		require.Greater(t, len(seenConds), 30)
		// the unseen cases are mixed in, not a block at either end
		first := v3["heldout"][:HeldOutSize/2]
		k := 0
		for _, c := range first {
			if unseen[c.Condition] {
				k++
			}
		}
		require.True(t, k > 5 && k < V3HeldOutUnseen-5, "seed %d: %d unseen in the first half", seed, k)
	}
	a, _ := GenerateVersion(V3, 7)
	b, _ := GenerateVersion(V3, 7)
	c, _ := GenerateVersion(V3, 8)
	for _, split := range Splits {
		require.Equal(t, jsonl(t, a[split]), jsonl(t, b[split]), split)
		require.NotEqual(t, jsonl(t, a[split]), jsonl(t, c[split]), split)
	}
	require.NotEqual(t, UnseenV3(7), UnseenV3(8), "the unseen set is drawn by seed")
}
