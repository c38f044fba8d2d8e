// Package textmatch is the lexical matching shared by the built-in roles and the
// manager: normalisation, content tokens with light stemming, and coverage
// measures. One implementation keeps the patient, exam service, doctor and judge
// agreeing on what "the same words" means.
package textmatch

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Normalize lowercases s, maps punctuation and underscores to spaces, folds a few
// typographic characters and collapses whitespace.
func Normalize(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return normalizeRunes(s)
		}
	}
	return normalizeASCII(s)
}

// normalizeASCII is Normalize for a string of ASCII bytes, where a letter is
// a-z or A-Z and a digit 0-9 (as unicode.IsLetter and IsDigit say there). It
// returns s itself when s is already normal, which is most phrases the roles
// match again and again (diagnosis names, topics, catalog names).
func normalizeASCII(s string) string {
	normal := true
	space := true
	for i := 0; i < len(s) && normal; i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			space = false
		case c == ' ' && !space:
			space = true
		default:
			normal = false
		}
	}
	if normal && !space || s == "" {
		return s
	}
	b := make([]byte, 0, len(s))
	space = true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			continue // as in normalizeRunes
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			b = append(b, c)
			space = false
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
			space = false
		case !space:
			b = append(b, ' ')
			space = true
		}
	}
	if len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	return string(b)
}

// normalizeRunes is Normalize for any string.
func normalizeRunes(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := true
	for _, r := range strings.ToLower(s) {
		switch r {
		case '’', '‘', '\'':
			continue // "Hirschsprung’s" and "Hirschsprung's" both become "hirschsprungs"
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// stop words carry no clinical content.
var stop = set(`a an and are as at be been being but by can could did do does doing for from had has have having he her
hers him his how i if in into is it its just me my no nor not of on or our out over she so some such than that the their them
then there these they this those to too under up very was we were what when where which while who whom why will with would you
your yours any all also about after again against before below between both during each few more most other own same
only further once here until off through am any tell describe please ok okay well doctor patient s t
worried serious probably nothing neighbour muddled sorry look fine need know begin think maybe sure remember quite
something let see get looked said hmm why where`)

// generic words do not distinguish one diagnosis from another: course,
// certainty, side and severity, and the clinical filler a diagnosis name
// carries whatever the disease ("infection", "inflammation", "episode").
// Stemmed as tokens are, so that "infections" and "infectious" drop too.
// The list is clinevo's (no paper gives one).
var generic = stemmed(`acute chronic disease disorder syndrome condition unspecified undifferentiated primary secondary
type likely probable possible suspected left right bilateral mild moderate severe simple
infection infective infectious inflammation inflammatory illness problem lesion disturbance dysfunction
abnormality recurrent benign episode attack presentation`)

// qualifiers say where a disease is or what kind it is: they refine a
// diagnosis name, so they stay among its specific words, but two names that
// share nothing else name different diseases ("viral pharyngitis" and
// "viral gastroenteritis", "chest infection" and "chest wall pain",
// "heart failure" and "renal failure", "cutaneous meningeal heterotopia"
// and "primary cutaneous trichosporonosis"). clinevo's list, the second
// part read off DiagnosisArena's diagnoses (sites, extents, kinds).
var qualifiers = stemmed(`viral bacterial fungal parasitic allergic atopic deficiency failure
chest abdominal abdomen back head neck throat ear eye nose nasal leg arm hand foot knee hip shoulder joint skin
urinary tract bladder kidney renal liver hepatic heart cardiac lung pulmonary upper lower wall muscle
musculoskeletal nerve spine spinal bowel stomach gastric
cutaneous mucocutaneous subcutaneous dermal epidermal ocular orbital retinal oral systemic localized localised
generalized generalised disseminated diffuse focal multifocal congenital hereditary familial inherited idiopathic
malignant metastatic invasive atypical necrotizing necrotising granulomatous eosinophilic neutrophilic lymphocytic
vascular venous arterial cerebral intracranial intestinal colonic rectal anal vulvar penile scrotal cervical adrenal
juvenile adult neonatal infantile pediatric paediatric induced associated related unilateral multiple giant`)

func stemmed(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[Stem(w)] = true
	}
	return m
}

// SharesSpecific reports whether two sets of specific words (Specific) name
// a common disease: they share a word that is not a qualifier, or the words
// they share are all of one side's, at least two of them ("urinary tract"
// within "lower urinary tract"). A shared place or kind alone is not enough.
func SharesSpecific(a, b map[string]bool) bool {
	shared := 0
	for w := range a {
		if b[w] {
			if !qualifiers[w] {
				return true
			}
			shared++
		}
	}
	return shared >= 2 && (shared == len(a) || shared == len(b))
}

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Stem strips a few English suffixes so that "pains", "painful" and "pain" meet.
func Stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	for _, suf := range []string{"ational", "ness", "ment", "ing", "ful", "ies", "ed", "es", "ly", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = strings.TrimSuffix(w, suf)
			if suf == "ies" {
				w += "y"
			}
			break
		}
	}
	return w
}

// Tokens returns the stemmed content tokens of s in order, without stop words.
func Tokens(s string) []string {
	var out []string
	for _, w := range strings.Fields(Normalize(s)) {
		if stop[w] {
			continue
		}
		out = append(out, Stem(w))
	}
	return out
}

// Set returns the distinct content tokens of s.
func Set(s string) map[string]bool {
	m := map[string]bool{}
	for _, t := range Tokens(s) {
		m[t] = true
	}
	return m
}

// Specific returns the content tokens of a diagnosis name without generic words.
func Specific(s string) map[string]bool {
	m := Set(s)
	for w := range m {
		if generic[w] {
			delete(m, w)
		}
	}
	return m
}

// Coverage is the fraction of part's tokens that occur in whole (0 if part has none).
func Coverage(part, whole map[string]bool) float64 {
	if len(part) == 0 {
		return 0
	}
	n := 0
	for t := range part {
		if whole[t] {
			n++
		}
	}
	return float64(n) / float64(len(part))
}

// Jaccard is |a∩b| / |a∪b| (0 for two empty sets).
func Jaccard(a, b map[string]bool) float64 {
	inter := 0
	for t := range a {
		if b[t] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 0
	}
	return float64(inter) / float64(union)
}

// Subset reports whether every token of a is in b.
func Subset(a, b map[string]bool) bool {
	for t := range a {
		if !b[t] {
			return false
		}
	}
	return true
}

// Union merges token sets.
func Union(sets ...map[string]bool) map[string]bool {
	m := map[string]bool{}
	for _, s := range sets {
		for t := range s {
			m[t] = true
		}
	}
	return m
}

// Sorted returns the tokens of a set in order, for deterministic output.
func Sorted(s map[string]bool) []string {
	out := make([]string, 0, len(s))
	for t := range s {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// ContainsPhrase reports whether the normalised text contains the normalised
// phrase on word boundaries.
func ContainsPhrase(text, phrase string) bool {
	p := Normalize(phrase)
	if p == "" {
		return false
	}
	return strings.Contains(" "+Normalize(text)+" ", " "+p+" ")
}

// NonBlank returns the entries of xs that hold more than white space, trimmed
// of it: the items of a list a doctor or a model wrote.
func NonBlank(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
