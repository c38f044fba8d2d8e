package corpus_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/corpustest"
	"github.com/clinevo/clinevo/corpus/synth"
)

func TestParseBuiltin(t *testing.T) {
	tests := []struct {
		ref  string
		want corpus.Builtin
		err  string
	}{
		{ref: "builtin:stream", want: corpus.Builtin{Version: synth.Default, Split: "stream", Seed: 7}},
		{ref: "builtin:stream@7", want: corpus.Builtin{Version: synth.V2, Split: "stream", Seed: 7}},
		{ref: "builtin:v1:stream@7", want: corpus.Builtin{Version: synth.V1, Split: "stream", Seed: 7}},
		{ref: "builtin:v2:heldout@12", want: corpus.Builtin{Version: synth.V2, Split: "heldout", Seed: 12}},
		{ref: "builtin:v1:update", want: corpus.Builtin{Version: synth.V1, Split: "update", Seed: 7}},
		{ref: "builtin:v3:heldout@7", want: corpus.Builtin{Version: synth.V3, Split: "heldout", Seed: 7}},
		{ref: "builtin:v4:stream", err: `unknown generator version "v4", want v1, v2 or v3`},
		{ref: "builtin:1:stream", err: `unknown generator version "1"`},
		{ref: "builtin:x:y:stream", err: `unknown generator version "x"`},
		{ref: "builtin:stream@x", err: `seed "x" is not a non-negative integer`},
		{ref: "builtin:toy@7", want: corpus.Builtin{Version: synth.V2, Split: "toy", Seed: 7}},
		{ref: "builtin:toy-test", want: corpus.Builtin{Version: synth.V2, Split: "toy-test", Seed: 7}},
		{ref: "builtin:v2:toy-test@3", want: corpus.Builtin{Version: synth.V2, Split: "toy-test", Seed: 3}},
		{ref: "builtin:v1:toy", err: "split toy is built on generator version v2, v3 only, not v1"},
		{ref: "builtin:v3:toy-test@7", want: corpus.Builtin{Version: synth.V3, Split: "toy-test", Seed: 7}},
		{ref: "builtin:streams", err: `unknown split "streams", want one of stream, heldout, cross, update, toy, toy-test`},
		{ref: "builtin:", err: `unknown split ""`},
		{ref: "stream.jsonl", err: `starts with "builtin:"`},
	}
	for _, tc := range tests {
		t.Run(tc.ref, func(t *testing.T) {
			b, err := toyLibrary().ParseBuiltin(tc.ref)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				require.ErrorContains(t, err, tc.ref, "the error names the reference")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, b)
			again, err := toyLibrary().ParseBuiltin(b.String())
			require.NoError(t, err)
			require.Equal(t, b, again, "the explicit spelling %s parses back", b)
		})
	}
}

func TestLoadNamesVersions(t *testing.T) {
	v1, err := corpus.Library{}.Load("builtin:v1:stream@7")
	require.NoError(t, err)
	v2, err := corpus.Library{}.Load("builtin:stream@7")
	require.NoError(t, err)
	require.Equal(t, synth.SourceV1, v1.Cases[0].Provenance.Source)
	require.Equal(t, synth.SourceV2, v2.Cases[0].Provenance.Source)
	want, err := synth.GenerateVersion(synth.V1, 7)
	require.NoError(t, err)
	require.Equal(t, want["stream"], v1.Cases)
}

// TestTestAvailability: version 1 gives tests away by whether they return a
// result, version 2 gives none away, and strict validation says which.
func TestTestAvailability(t *testing.T) {
	for _, split := range synth.Splits {
		t.Run(split, func(t *testing.T) {
			v1, err := corpus.Library{}.Load("builtin:v1:" + split)
			require.NoError(t, err)
			gaps := corpus.TestAvailability(v1)
			require.NotEmpty(t, gaps)
			byTest := map[string]corpus.AvailabilityGap{}
			for _, g := range gaps {
				byTest[g.Test] = g
			}
			require.Equal(t, []string{"dvt"}, byTest["d dimer"].Always, "D-dimer answers for DVT only")
			require.Len(t, byTest["d dimer"].Never, len(synth.Conditions())-1)
			err = corpus.CheckAvailability(v1)
			require.ErrorContains(t, err, "builtin:v1:"+split+": strict")
			require.ErrorContains(t, err, "d dimer: a result in every case of 1 of 46 conditions (dvt)")
			require.ErrorContains(t, err, "ct head")

			v2, err := corpus.Library{}.Load("builtin:" + split)
			require.NoError(t, err)
			require.Empty(t, corpus.TestAvailability(v2))
			require.NoError(t, corpus.CheckAvailability(v2))
		})
	}
	// A partial gap: the same condition with and without a result.
	c, err := corpus.Library{}.Load("builtin:stream")
	require.NoError(t, err)
	cases := append(c.Cases[:0:0], c.Cases[:100]...)
	gerd := 0
	for i := range cases {
		if cases[i].Condition == "gerd" {
			if gerd%2 == 0 {
				cases[i].Exam.Tests = cases[i].Exam.Tests[1:]
			}
			gerd++
		}
	}
	require.GreaterOrEqual(t, gerd, 2)
	part, err := corpus.New("part", cases)
	require.NoError(t, err)
	gaps := corpus.TestAvailability(part)
	require.Len(t, gaps, 1)
	require.Equal(t, []string{"gerd"}, gaps[0].Sometimes)
	require.Equal(t, c.Cases[0].Exam.Tests[0].Name, gaps[0].Test)

	// An imported corpus can fail strict validation too: AgentClinic lists each
	// case's own tests.
	ac, err := corpus.New("agentclinic", corpustest.AgentClinic(t))
	require.NoError(t, err)
	require.Error(t, corpus.CheckAvailability(ac))
}

func TestOpeningOverlapAndStats(t *testing.T) {
	load := func(ref string) *corpus.Corpus { return mustLoad(t, ref) }
	v1 := corpus.OpeningOverlap(load("builtin:v1:heldout@7"), load("builtin:v1:stream@7"))
	require.Equal(t, 100, v1.Cases)
	require.Greater(t, v1.SharedCases, 50, "version 1 held-out openings repeat stream openings")
	v2 := corpus.OpeningOverlap(load("builtin:heldout@7"), load("builtin:stream@7"))
	require.Zero(t, v2.SharedCases)
	require.Empty(t, v2.SharedOpenings)
	self := corpus.OpeningOverlap(load("builtin:stream@7"), load("builtin:stream@7"))
	require.Equal(t, 500, self.SharedCases)

	o1, o2 := corpus.Openings(load("builtin:v1:stream@7")), corpus.Openings(load("builtin:stream@7"))
	require.Zero(t, o1.VaryingEvidence, "version 1: the same key points in every case of a condition")
	require.LessOrEqual(t, o1.MinPerCondition, 3)
	require.Greater(t, o2.VaryingEvidence, 20)
	require.GreaterOrEqual(t, o2.MinPerCondition, 6)
	require.Greater(t, o2.Distinct, 2*o1.Distinct)

	var b bytes.Buffer
	corpus.WriteStats(&b, load("builtin:v1:stream@7"))
	corpus.WriteOverlap(&b, load("builtin:heldout@7"), load("builtin:stream@7"))
	require.Contains(t, b.String(), "tests whose availability depends on the condition: 19")
	require.Contains(t, b.String(), "openings of builtin:heldout@7 seen in builtin:stream@7: 0 shared normalised openings, 0 of 100 cases")
	require.Contains(t, b.String(), "conditions of builtin:heldout@7 unseen in builtin:stream@7: 0 of 46 conditions, 0 of 100 cases (0.0%)")
}

// TestConditionNovelty: version 3's held-out split has V3HeldOutUnseen of its
// cases on conditions its stream never shows; version 2's has none.
func TestConditionNovelty(t *testing.T) {
	load := func(ref string) *corpus.Corpus { return mustLoad(t, ref) }
	v3 := corpus.ConditionNovelty(load("builtin:v3:heldout@7"), load("builtin:v3:stream@7"))
	require.Equal(t, synth.V3HeldOutUnseen, v3.UnseenCases)
	require.ElementsMatch(t, synth.UnseenV3(7), v3.Unseen)
	require.InDelta(t, 0.4, v3.Share(), 1e-12)
	require.Zero(t, corpus.ConditionNovelty(load("builtin:v3:cross@7"), load("builtin:v3:stream@7")).UnseenCases)
	require.Zero(t, corpus.ConditionNovelty(load("builtin:heldout@7"), load("builtin:stream@7")).UnseenCases)
	// a case without a condition key is labelled by its diagnosis
	c := load("builtin:heldout@7")
	c.Cases[0].Condition = ""
	require.Equal(t, 1, corpus.ConditionNovelty(c, load("builtin:stream@7")).UnseenCases)
	require.Zero(t, corpus.ConditionNovelty(&corpus.Corpus{}, c).Share())
}

func mustLoad(t *testing.T, ref string) *corpus.Corpus {
	t.Helper()
	c, err := corpus.Library{}.Load(ref)
	require.NoError(t, err)
	return c
}
