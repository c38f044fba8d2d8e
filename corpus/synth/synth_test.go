package synth

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/catalog"
	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// jsonl encodes cases as the corpus writer does, one object a line.
func jsonl(t *testing.T, cases []clinic.Case) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i := range cases {
		require.NoError(t, enc.Encode(&cases[i]))
	}
	return b.Bytes()
}

// requireDigests checks a version's splits for seed 7 against sha256
// checksums of their JSONL.
func requireDigests(t *testing.T, version int, want map[string]string) {
	t.Helper()
	splits, err := GenerateVersion(version, 7)
	require.NoError(t, err)
	for split, sum := range want {
		h := sha256.Sum256(jsonl(t, splits[split]))
		require.Equal(t, sum, hex.EncodeToString(h[:]), split)
	}
}

// TestReleasedVersionsAreReproducible pins versions 1 and 2 byte for byte:
// the checksums are those of `clinevo corpus gen --seed 7` before version 2
// (for version 1) and version 3 (for version 2) existed.
func TestReleasedVersionsAreReproducible(t *testing.T) {
	requireDigests(t, V1, map[string]string{
		"stream":  "8c85665a39ed4845c2e86b410ca7de958ab68236aeed021f7e9d55931cace909",
		"heldout": "02e68d4f11c871cb89be71ce817d889c3afdaebe1fb95ff0c66762eb9b1f04ab",
		"cross":   "007379c3b9cc9d2bd2aaad27f15daa307b3568e14b0bf622d7d9b9f21efc84bd",
		"update":  "ca250f579a5786320d6d171150d8798c372c4fd999ee7d3f6c7a4db4f187927e",
	})
	requireDigests(t, V2, map[string]string{
		"stream":  "0a44285d16c4ce772d392c31d6c5efa354d9af1e681f715738d4658d8a8f8eb3",
		"heldout": "524c55a5935ed8f5bdbaea2431b556d54025f3d28840121da546b2b69a8a86ac",
		"cross":   "555c00a1806aacc8d95d701df1bf8eb5b4ffda647480f9f47e18e5bff654a1a9",
		"update":  "0c52c1e7bf169027282ee15b7d0fab99ee7873664abef4b5825b85bdadd33f62",
	})
	v2, _ := GenerateVersion(V2, 7)
	require.Equal(t, jsonl(t, v2["stream"]), jsonl(t, Generate(7)["stream"]), "the default version is v2")
	_, err := GenerateVersion(4, 7)
	require.ErrorContains(t, err, "unknown generator version 4")
}

func TestVersion2IsDeterministicBySeed(t *testing.T) {
	a, b, c := Generate(7), Generate(7), Generate(8)
	for _, split := range Splits {
		require.Equal(t, jsonl(t, a[split]), jsonl(t, b[split]), split)
		require.NotEqual(t, jsonl(t, a[split]), jsonl(t, c[split]), split)
		for _, cs := range a[split] {
			require.Equal(t, SourceV2, cs.Provenance.Source)
		}
	}
}

func TestVersion2Tables(t *testing.T) {
	cat := catalog.Default()
	for _, it := range cat.Items() {
		if !it.Free() {
			require.Contains(t, normalResults, it.Name, "every billable test needs a normal result")
		}
	}
	for name := range normalResults {
		it, m := cat.Lookup(name)
		require.Equal(t, catalog.MatchExact, m, name)
		require.False(t, it.Free(), name)
	}
	groups := map[string]bool{}
	for _, cd := range conditions {
		groups[cd.grp] = true
		t.Run(cd.key, func(t *testing.T) {
			pool := openingPool(cd)
			require.GreaterOrEqual(t, len(pool), 8, "at least eight openings")
			names := append([]string{cd.name}, list(cd.aka)...)
			for _, o := range pool {
				for _, n := range names {
					require.False(t, textmatch.ContainsPhrase(o, n), "opening %q names the diagnosis %q", o, n)
				}
			}
			refs := evidenceSupport[cd.key]
			require.Len(t, refs, len(cd.evi), "one support reference per evidence key point")
			tests := map[string]bool{}
			for _, tr := range append(append([]string(nil), cd.tests...), extraResults[cd.key]...) {
				name, _ := split2(tr)
				_, m := cat.Lookup(name)
				require.Equal(t, catalog.MatchExact, m, "result for an unknown test %q", name)
				tests[name] = true
			}
			for i, ref := range refs {
				for _, alt := range strings.FieldsFunc(ref, func(r rune) bool { return r == '+' || r == '|' }) {
					switch {
					case strings.HasPrefix(alt, "t:"):
						require.True(t, tests[alt[2:]], "%q (key point %q) names a test the condition has no result for", alt, cd.evi[i])
					case len(alt) > 1 && strings.Contains("pne", alt[:1]):
						k, err := strconv.Atoi(alt[1:])
						require.NoError(t, err, alt)
						n := map[byte]int{'p': len(cd.pos), 'n': len(cd.neg), 'e': len(cd.exam)}[alt[0]]
						require.Less(t, k, n, "%q (key point %q) is out of range", alt, cd.evi[i])
					default:
						t.Fatalf("bad support reference %q", alt)
					}
				}
			}
		})
	}
	for g := range groups {
		require.Contains(t, groupOpenings, g)
	}
}

// readsNormal reports whether a result says in words that it is normal.
func readsNormal(result string) bool {
	for _, p := range []string{"normal", "negative", "not raised", "not detected", "no significant", "acceptable", "within the reference range", "no pathogens", "no enteric pathogens", "no blood"} {
		if textmatch.ContainsPhrase(result, p) {
			return true
		}
	}
	return false
}

// unvary undoes the wording variation of facts, to find a table fact in a case.
func unvary(s string) string {
	for _, p := range synonyms {
		s = strings.ReplaceAll(s, p[1], p[0])
	}
	return textmatch.Normalize(s)
}

// TestVersion2CasesFollowTheirContent checks every case of every split: a
// result for every billable test, abnormal only where the condition (or its
// shifted presentation) says so; evidence key points only where what supports
// them is in the case; distractors that never name the diagnosis.
func TestVersion2CasesFollowTheirContent(t *testing.T) {
	byKey := map[string]condition{}
	for _, cd := range conditions {
		byKey[cd.key] = cd
	}
	var billable []string
	for _, it := range catalog.Default().Items() {
		if !it.Free() {
			billable = append(billable, it.Name)
		}
	}
	varying := map[string]map[string]bool{}
	distracted := 0
	all := Generate(7)
	for _, split := range Splits {
		for _, c := range all[split] {
			cd := byKey[c.Condition]
			results := map[string]clinic.TestValue{}
			for _, tv := range c.Exam.Tests {
				results[tv.Name] = tv
			}
			for _, name := range billable {
				require.Contains(t, results, name, "%s has no %s result", c.ID, name)
			}
			listed := map[string]bool{}
			for _, tr := range append(append(append([]string(nil), cd.tests...), extraResults[cd.key]...), cd.shift...) {
				_, res := split2(tr)
				listed[res] = true
			}
			for _, tv := range c.Exam.Tests {
				if tv.Abnormal {
					require.True(t, listed[tv.Result], "%s: abnormal %s result %q is not the condition's", c.ID, tv.Name, tv.Result)
				} else {
					require.True(t, readsNormal(tv.Result), "%s: %s result %q is marked normal but does not read normal", c.ID, tv.Name, tv.Result)
				}
			}
			present := map[string]bool{}
			facts := map[string]bool{}
			for _, f := range c.Patient.Facts {
				facts[unvary(f.Text)] = true
			}
			for i, p := range cd.pos {
				_, text, _ := splitFact(p)
				present["p"+strconv.Itoa(i)] = facts[unvary(text)]
			}
			for i, p := range cd.neg {
				_, text, _ := splitFact(p)
				present["n"+strconv.Itoa(i)] = facts[unvary(text)]
			}
			for i, e := range cd.exam {
				_, text := split2(e)
				for _, f := range c.Exam.Findings {
					present["e"+strconv.Itoa(i)] = present["e"+strconv.Itoa(i)] || f.Text == text
				}
			}
			for _, tr := range append(append([]string(nil), cd.tests...), extraResults[cd.key]...) {
				name, res := split2(tr)
				present["t:"+name] = results[name].Result == res || ((looksNormal(res) || listedNormal[cd.key+"/"+name]) && !results[name].Abnormal)
			}
			for i, p := range cd.evi {
				kept := false
				for _, e := range c.Manager.Evidence {
					kept = kept || e == p
				}
				require.Equal(t, supported(evidenceSupport[cd.key][i], present), kept, "%s: key point %q", c.ID, p)
			}
			if c.Meta.Shifted {
				require.NotEmpty(t, c.Manager.Evidence, c.ID) // an atypical presentation may keep a single key point
			} else {
				require.GreaterOrEqual(t, len(c.Manager.Evidence), 2, c.ID)
			}
			if varying[c.Condition] == nil {
				varying[c.Condition] = map[string]bool{}
			}
			varying[c.Condition][strings.Join(c.Manager.Evidence, "|")] = true

			names := append(append([]string{cd.name}, list(cd.aka)...), list(cd.danger)...)
			for _, f := range c.Patient.Facts {
				for _, d := range distractors {
					if f.Text == d.past || f.Text == d.med {
						distracted++
						for _, n := range names {
							require.False(t, textmatch.ContainsPhrase(f.Text, n), "%s: distractor %q names %q", c.ID, f.Text, n)
						}
					}
				}
			}
		}
	}
	n := 0
	for _, sets := range varying {
		if len(sets) > 1 {
			n++
		}
	}
	require.GreaterOrEqual(t, n, len(conditions)/2, "key points vary between the cases of most conditions")
	require.Greater(t, distracted, 200, "comorbidities and unrelated medicines are common")
}

// TestVersion2OpeningsDoNotRepeatAcrossSplits: no held-out or cross opening
// equals, after normalisation, an opening of the stream or the update stream.
func TestVersion2OpeningsDoNotRepeatAcrossSplits(t *testing.T) {
	for _, seed := range []uint64{7, 8, 1, 42} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s := Generate(seed)
			seen := map[string]bool{}
			perCondition := map[string]map[string]bool{}
			for _, split := range []string{"stream", "update"} {
				for _, c := range s[split] {
					seen[textmatch.Normalize(c.Patient.OpeningComplaint)] = true
					if perCondition[c.Condition] == nil {
						perCondition[c.Condition] = map[string]bool{}
					}
					perCondition[c.Condition][textmatch.Normalize(c.Patient.OpeningComplaint)] = true
				}
			}
			for _, split := range []string{"heldout", "cross"} {
				for _, c := range s[split] {
					require.False(t, seen[textmatch.Normalize(c.Patient.OpeningComplaint)], "%s opening %q is a stream opening", c.ID, c.Patient.OpeningComplaint)
				}
			}
			for cond, openings := range perCondition {
				require.GreaterOrEqual(t, len(openings), 6, "%s: the stream says it in many ways", cond)
			}
		})
	}
}

// TestConfusableConditionsShareStages: every stage of the stream holds every
// member of every confusable group.
func TestConfusableConditionsShareStages(t *testing.T) {
	groups := map[string][]string{}
	for _, cd := range conditions {
		groups[cd.grp] = append(groups[cd.grp], cd.key)
	}
	stream := Generate(7)["stream"]
	for s := 1; s <= StreamStages; s++ {
		in := map[string]bool{}
		for _, c := range stream[(s-1)*StageSize : s*StageSize] {
			in[c.Condition] = true
		}
		for g, members := range groups {
			for _, m := range members {
				require.True(t, in[m], "stage %d lacks %s of group %s", s, m, g)
			}
		}
	}
}
