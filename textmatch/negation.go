package textmatch

import (
	"strings"
)

// Negated marks a claim token that the text denies: "no fever" claims
// "no:fever".
const Negated = "no:"

// negators open a negated stretch of a clause ("no", "denies", "without",
// "negative for"); apostrophes are dropped as Normalize drops them.
var negators = set(`no not denies denied deny denying without never nor negative absence free dont doesnt didnt hasnt
havent hadnt isnt wasnt arent werent cannot`)

// postNegators deny what comes before them in a clause ("fever absent",
// "cultures negative").
var postNegators = set(`absent negative free`)

// clauseBreaks end a negation's reach inside a sentence.
var clauseBreaks = set(`but however although though except yet whereas while apart`)

// negatedAs are single words that are a denial of something ("afebrile" is
// "no fever"); clinevo's short list.
var negatedAs = map[string]string{"afebrile": "fever", "apyrexial": "fever", "asymptomatic": "symptom", "painless": "pain",
	"nontender": "tender", "normotensive": "hypertension"}

// Claims returns the content tokens of s (as Set does), each one the text
// denies marked with the Negated prefix: "no fever or chills, cough" claims
// no:fever, no:chill and cough; "denies chest pain" no:chest and no:pain;
// "fever with rigors" fever and rigor. A negation reaches to the end of its
// clause (a comma, a semicolon, a full stop, or "but", "however", ...).
func Claims(s string) map[string]bool {
	out := map[string]bool{}
	for _, clause := range clauses(s) {
		words := strings.Fields(Normalize(clause))
		post := len(words) > 0 && postNegators[words[len(words)-1]]
		negated := false
		for _, w := range words {
			if negators[w] || postNegators[w] {
				negated = true
				continue
			}
			if t, ok := negatedAs[w]; ok {
				out[Negated+Stem(t)] = true
				continue
			}
			if stop[w] {
				continue
			}
			if negated || post {
				out[Negated+Stem(w)] = true
			} else {
				out[Stem(w)] = true
			}
		}
	}
	return out
}

// clauses splits s at punctuation that ends a clause and at clauseBreaks.
func clauses(s string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(",;.:!?()\n", r) }) {
		words := strings.Fields(part)
		start := 0
		for i, w := range words {
			if clauseBreaks[strings.ToLower(w)] {
				out = append(out, strings.Join(words[start:i], " "))
				start = i + 1
			}
		}
		out = append(out, strings.Join(words[start:], " "))
	}
	return out
}

// Contradicts reports whether one claim set denies what the other asserts:
// a has x where b has only no:x, or a has no:x where b has only x.
func Contradicts(a, b map[string]bool) bool {
	for t := range a {
		if neg, ok := strings.CutPrefix(t, Negated); ok {
			if b[neg] && !b[t] {
				return true
			}
		} else if b[Negated+t] && !b[t] {
			return true
		}
	}
	return false
}
