package textmatch

import (
	"math/rand/v2"
	"testing"
)

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "",
		"chest pain":             "chest pain",
		"  Chest   PAIN! ":       "chest pain",
		"Hirschsprung's disease": "hirschsprungs disease",
		"Hirschsprung’s disease": "hirschsprungs disease",
		"full_blood_count (FBC)": "full blood count fbc",
		"HbA1c 7.2%":             "hba1c 7 2",
		"Ménière's disease":      "ménières disease",
		"'''":                    "",
		"pain ":                  "pain",
		" pain":                  "pain",
		"pain\tand\nfever":       "pain and fever",
		"ÉCG — normal":           "écg normal",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// The ASCII path must give what the general one gives, on every ASCII string.
func TestNormalizeASCIIMatchesRunes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "aAzZ09 _-'.,\t\n()%/"
	for range 20000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = byte(r.IntN(128))
			} else {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
		s := string(b)
		if got, want := normalizeASCII(s), normalizeRunes(s); got != want {
			t.Fatalf("normalizeASCII(%q) = %q, normalizeRunes gives %q", s, got, want)
		}
	}
}

func TestContainsPhrase(t *testing.T) {
	for _, c := range []struct {
		text, phrase string
		want         bool
	}{
		{"I have Type 2 diabetes.", "type 2 diabetes", true},
		{"I have Type 2 diabetes.", "diabetes", true},
		{"I have diabetes insipidus", "diabetes mellitus", false},
		{"asthmatic", "asthma", false}, // whole words only
		{"anything", "", false},
	} {
		if got := ContainsPhrase(c.text, c.phrase); got != c.want {
			t.Errorf("ContainsPhrase(%q, %q) = %v, want %v", c.text, c.phrase, got, c.want)
		}
	}
}

func BenchmarkNormalize(b *testing.B) {
	for _, s := range []string{"community acquired pneumonia", "I take levothyroxine every morning.", "Ménière's disease"} {
		b.Run(s, func(b *testing.B) {
			for b.Loop() {
				Normalize(s)
			}
		})
	}
}
