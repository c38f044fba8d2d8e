package gpagent_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/gpagent"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/textmatch"
)

// generate is the GP corpus of a seed.
func generate(t *testing.T, seed uint64) map[string][]clinic.Case {
	t.Helper()
	out, err := gpagent.Generate(seed)
	require.NoError(t, err)
	return out
}

// jsonl is the corpus file of cases, as corpus gen writes it.
func jsonl(t *testing.T, cases []clinic.Case) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i := range cases {
		require.NoError(t, enc.Encode(&cases[i]))
	}
	return b.Bytes()
}

// canonical is the corpus file of cases with every object's members in name
// order: its checksum pins the cases, not the order in which a type writes
// its members.
func canonical(t *testing.T, cases []clinic.Case) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, line := range bytes.Split(bytes.TrimSpace(jsonl(t, cases)), []byte("\n")) {
		var v any
		require.NoError(t, json.Unmarshal(line, &v))
		require.NoError(t, enc.Encode(v)) // maps encode in key order
	}
	return b.Bytes()
}

// TestGPCorpusIsReproducible pins the GP corpus: the checksums are those of
// `clinevo corpus gen --gp --seed 7` (and 3) before the corpus moved into the
// benchmark's folder, with the members of every object in name order.
func TestGPCorpusIsReproducible(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		seed       uint64
		split, sum string
	}{
		{7, "gp", "fcd2f5e01722a1d7f0c8aa58ee2b5c3c92266431c9610eaef2d6d5cfa086c5d4"},
		{7, "gp-heldout", "dceb6f6c051f8b15a804a3548fd1625b7670a698442a3bb8caeb5eaaa7d59ee7"},
		{3, "gp", "b405a4d3330c71538203a47ec725becc351e31544fd55f56a26207f4bf695e47"},
		{3, "gp-heldout", "4e1827222811c02761621b45c4d3a4ddc3bd1015853e02f24657ecbf22860842"},
	} {
		sum := sha256.Sum256(canonical(t, generate(t, tc.seed)[tc.split]))
		require.Equal(t, tc.sum, hex.EncodeToString(sum[:]), "%s@%d", tc.split, tc.seed)
	}
}

func TestGPCorpusIsDeterministicBySeed(t *testing.T) {
	t.Parallel()
	a, b, c := generate(t, 7), generate(t, 7), generate(t, 8)
	for _, split := range gpagent.Splits {
		require.Equal(t, jsonl(t, a[split]), jsonl(t, b[split]), split)
		require.NotEqual(t, jsonl(t, a[split]), jsonl(t, c[split]), split)
	}
}

// TestGPCorpusShape checks the GP corpus against GPAgentBench's design (§3,
// §5.1): every condition as a manage and a refer case, at least 30% refer in
// every stage and split (stratified: the same share in each stage), refer
// cases with a destination, an urgency, red flags and a treatment; the
// held-out split's openings never used in the stream.
func TestGPCorpusShape(t *testing.T) {
	gp := generate(t, 7)
	require.Len(t, gp["gp"], gpagent.Stages*synth.StageSize)
	require.Len(t, gp["gp-heldout"], gpagent.HeldOutSize)
	seen := map[string]bool{}
	for _, c := range gp["gp"] {
		seen[textmatch.Normalize(c.Patient.OpeningComplaint)] = true
	}
	for _, split := range gpagent.Splits {
		byStage := map[int][2]int{}
		variants := map[string]bool{}
		for _, c := range gp[split] {
			require.Equal(t, gpagent.SourceGP, c.Provenance.Source)
			require.Contains(t, gpagent.Conditions(), c.Condition)
			label := gpagent.ManagementOf(&c).Label
			require.Contains(t, gpagent.Pathways, label)
			variants[c.Condition+"/"+label] = true
			n := byStage[c.Meta.Stage]
			if label == gpagent.PathwayRefer {
				n[1]++
				r := c.Manager.Referral
				require.True(t, r.Needed, c.ID)
				require.NotEmpty(t, r.Destination, c.ID)
				require.Contains(t, []string{"routine", "urgent", "emergency"}, r.Urgency, c.ID)
				require.NotEmpty(t, r.RedFlags, c.ID)
			} else {
				require.False(t, c.Manager.Referral.Needed, c.ID)
			}
			n[0]++
			byStage[c.Meta.Stage] = n
			require.NotEmpty(t, gpagent.ManagementOf(&c).Treatment, c.ID)
			p := c.Patient.Persona
			require.Contains(t, []string{"basic", "intermediate", "advanced"}, p.Language)
			require.Contains(t, []string{"high", "low"}, p.Recall)
			require.Contains(t, clinic.Disorientations, p.Disorientation)
			if split == "gp-heldout" {
				require.False(t, seen[textmatch.Normalize(c.Patient.OpeningComplaint)], "%s: a stream opening", c.ID)
			}
		}
		require.Len(t, variants, 2*len(gpagent.Conditions()), "%s: every condition as a manage and a refer case", split)
		refers := 0
		for k, c := range gp[split][:synth.StageSize] {
			if gpagent.ManagementOf(&c).Label == gpagent.PathwayRefer {
				refers++
			}
			want := float64(k+1) * 0.42
			require.InDelta(t, want, float64(refers), 0.5, "%s: the first %d cases are stratified too", split, k+1)
		}
		for stage, n := range byStage {
			share := float64(n[1]) / float64(n[0])
			require.GreaterOrEqual(t, share, 0.3, "%s stage %d", split, stage)
			require.InDelta(t, 0.42, share, 0.005, "%s stage %d: stratified", split, stage)
		}
	}
}

// negation marks a sentence that denies what it mentions (as the built-in
// doctor reads it).
var negation = regexp.MustCompile(`(?i)\b(no|not|never|none|denies|without any|nothing)\b|n't\b|\bnormal\b`)

// TestGPRedFlags checks the red flags as the built-in roles read them: each
// red flag of a refer case is shown by one affirmed sentence of the case (a
// fact, finding or result holding at least three quarters of its words); no
// affirmed sentence of a manage case of the same condition shows one.
func TestGPRedFlags(t *testing.T) {
	t.Parallel()
	sentences := func(c clinic.Case) []map[string]bool {
		var texts []string
		for _, f := range c.Patient.Facts {
			texts = append(texts, f.Text)
		}
		for _, f := range c.Exam.Findings {
			texts = append(texts, f.Text)
		}
		for _, r := range c.Exam.Tests {
			texts = append(texts, r.Result)
		}
		var out []map[string]bool
		for _, t := range texts {
			for _, s := range regexp.MustCompile(`[.;!?]\s`).Split(t+" ", -1) {
				if strings.TrimSpace(s) != "" && !negation.MatchString(s) {
					out = append(out, textmatch.Set(s))
				}
			}
		}
		return out
	}
	shows := func(ss []map[string]bool, flag string) bool {
		for _, s := range ss {
			if textmatch.Coverage(textmatch.Set(flag), s) >= 0.75 {
				return true
			}
		}
		return false
	}
	flags := map[string][]string{}
	for _, c := range generate(t, 7)["gp"] {
		if gpagent.ManagementOf(&c).Label == gpagent.PathwayRefer {
			flags[c.Condition] = c.Manager.Referral.RedFlags
		}
	}
	for _, c := range generate(t, 7)["gp"] {
		ss := sentences(c)
		for _, f := range flags[c.Condition] {
			if (gpagent.ManagementOf(&c).Label == gpagent.PathwayRefer) != shows(ss, f) {
				t.Errorf("%s (%s, %s): red flag %q", c.ID, c.Condition, gpagent.ManagementOf(&c).Label, f)
			}
		}
	}
}
