package textmatch

import (
	"strings"
	"unicode"
)

// FirstPerson rewrites one sentence about the patient into the patient's own
// words: "She reports chest pain on exertion." becomes "I report chest pain
// on exertion.", "You have had a cough for 6 months." becomes "I have had a
// cough for 6 months.", "The patient's mother had diabetes." becomes "My
// mother had diabetes.". A sentence with no reference to the patient is
// returned as it is ("The lesion was present since birth."). ok is false
// where the text does not allow a safe rewrite (a sentence already in the
// first person is returned as it is, ok): a third-person pronoun that
// may mean someone else (a relative, a doctor named in the sentence) is
// left alone, and so is the sentence.
func FirstPerson(sentence string) (string, bool) {
	words := splitWords(sentence)
	if len(words) == 0 {
		return sentence, true
	}
	second := false
	for _, w := range words {
		switch strings.ToLower(w.text) {
		case "you", "your", "yours", "yourself", "you're", "you've", "you'd", "you'll", "you’re", "you’ve":
			second = true
		case "i", "my", "me", "mine", "myself", "i'm", "i've", "i'd", "i’m", "i’ve":
			return sentence, true // already the patient's words: a "you" in them is someone else
		}
	}
	if second {
		return joinWords(secondToFirst(words)), true
	}
	return thirdToFirst(words)
}

// word is a token of a sentence: a run of letters, digits and apostrophes,
// or of anything else (space, punctuation), kept so the sentence rejoins as written.
type word struct {
	text   string
	isWord bool
}

func splitWords(s string) []word {
	var out []word
	cur := strings.Builder{}
	in := false
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, word{text: cur.String(), isWord: in})
			cur.Reset()
		}
	}
	for _, r := range s {
		w := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’' || r == '-'
		if w != in {
			flush()
			in = w
		}
		cur.WriteRune(r)
	}
	flush()
	return out
}

func joinWords(ws []word) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w.text)
	}
	out := b.String()
	if out != "" {
		r := []rune(out)
		r[0] = unicode.ToUpper(r[0])
		out = string(r)
	}
	return out
}

// objectBefore are the words after which "you" is an object ("told you"), not a subject.
var objectBefore = set(`to for with at on about from by of told tell asked ask gave give showed show examined examine sent send
referred refer saw see helped help bothering bother affect affects affecting let make made cause causes causing wake woke
prescribed prescribe gives given`)

// secondReplace are the second-person forms and their first-person ones.
var secondReplace = map[string]string{"your": "my", "yours": "mine", "yourself": "myself", "you're": "I'm", "you’re": "I'm",
	"you've": "I've", "you’ve": "I've", "you'd": "I'd", "you'll": "I'll"}

// secondToFirst rewrites second-person words: "you are" is "I am", "you
// were" "I was", "you" after a verb or preposition "me", else "I".
func secondToFirst(ws []word) []word {
	out := append([]word(nil), ws...)
	for i, w := range out {
		if !w.isWord {
			continue
		}
		lw := strings.ToLower(w.text)
		if r, ok := secondReplace[lw]; ok {
			out[i].text = keepCase(w.text, r)
			continue
		}
		if lw != "you" {
			continue
		}
		if p := prevWord(out, i); p >= 0 && objectBefore[strings.ToLower(out[p].text)] {
			out[i].text = "me"
			continue
		}
		out[i].text = "I"
		if n := nextWord(out, i); n >= 0 {
			switch strings.ToLower(out[n].text) {
			case "are":
				out[n].text = "am"
			case "were":
				out[n].text = "was"
			}
		}
	}
	return out
}

// keepCase gives r the capital of w where w starts with one ("Your" is "My"); "I" stays capital.
func keepCase(w, r string) string {
	if strings.HasPrefix(r, "I") || w == "" || !unicode.IsUpper([]rune(w)[0]) {
		return r
	}
	rr := []rune(r)
	rr[0] = unicode.ToUpper(rr[0])
	return string(rr)
}

func prevWord(ws []word, i int) int {
	for j := i - 1; j >= 0; j-- {
		if ws[j].isWord {
			return j
		}
	}
	return -1
}

func nextWord(ws []word, i int) int {
	for j := i + 1; j < len(ws); j++ {
		if ws[j].isWord {
			return j
		}
	}
	return -1
}

// others are words that bring another person into a sentence: a third-person
// pronoun there may mean them.
var others = set(`mother father sister brother son daughter wife husband partner parent parents aunt uncle cousin cousins
child children grandmother grandfather grandparents doctor doctors physician physicians dermatologist nurse friend friends
colleague colleagues family relative relatives sibling siblings twin boyfriend girlfriend neighbour neighbor they them their`)

// subjects are the nouns a case report calls the patient by, after "the".
var subjects = set(`patient child boy girl man woman infant baby neonate adolescent gentleman lady`)

// adverbs may stand between a subject and its verb ("She also reports").
var adverbs = set(`also still often never later then initially previously subsequently reportedly currently now always
frequently occasionally recently additionally further first last again`)

// historyLeads open a sentence about the patient's own background with no
// pronoun ("Medical history included ...").
var historyLeads = []string{"medical history", "past medical history", "past history", "family history", "social history",
	"surgical history", "medications", "medication history", "current medications"}

// thirdToFirst rewrites a sentence about "the patient", "he" or "she".
func thirdToFirst(ws []word) (string, bool) {
	out := append([]word(nil), ws...)
	other := false
	for _, w := range out {
		if w.isWord && others[strings.ToLower(w.text)] {
			other = true
		}
	}
	first := nextWord(out, -1)
	for i := first; i >= 0 && i < len(out); i = nextWord(out, i) {
		lw := strings.ToLower(out[i].text)
		atStart := i == first
		switch {
		case lw == "the" || lw == "this":
			if n := nextWord(out, i); n >= 0 && subjectNoun(out[n].text) {
				rewritePatient(out, i, n)
			}
		case lw == "he" || lw == "she":
			if other && !atStart {
				return joinWords(ws), false
			}
			out[i].text = "I"
			agree(out, i)
		case lw == "his" || lw == "her" && possessive(out, i):
			if other && !atStart {
				return joinWords(ws), false
			}
			out[i].text = "my"
		case lw == "him" || lw == "her":
			if other {
				return joinWords(ws), false
			}
			out[i].text = "me"
		case lw == "himself" || lw == "herself":
			out[i].text = "myself"
		}
	}
	s := joinWords(out)
	for _, h := range historyLeads {
		if strings.HasPrefix(strings.ToLower(s), h+" ") {
			return "My " + strings.ToLower(s[:1]) + s[1:], true
		}
	}
	return s, true
}

// subjectNoun reports whether w names the patient after "the" ("patient", "patient's").
func subjectNoun(w string) bool {
	lw := strings.ToLower(w)
	return subjects[strings.TrimSuffix(strings.TrimSuffix(lw, "'s"), "’s")]
}

// rewritePatient turns "the patient" (words i and n) into "I" or "me", and
// "the patient's" into "my".
func rewritePatient(out []word, i, n int) {
	lw := strings.ToLower(out[n].text)
	for j := i; j < n; j++ {
		out[j].text = "" // "the" and the space after it
	}
	switch {
	case strings.HasSuffix(lw, "'s") || strings.HasSuffix(lw, "’s"):
		out[n].text = "my"
	case i > 0 && objectBefore[strings.ToLower(out[max(prevWord(out, i), 0)].text)]:
		out[n].text = "me"
	default:
		out[n].text = "I"
		agree(out, n)
	}
}

// possessive reports whether "her" at i owns the word after it ("her
// father"), rather than being an object ("told her").
func possessive(out []word, i int) bool {
	n := nextWord(out, i)
	return n >= 0 && n == i+2 && out[i+1].text == " " && !objectBefore[strings.ToLower(out[n].text)] &&
		!set("and or but that which who when where as than")[strings.ToLower(out[n].text)]
}

// agree puts the verb after a subject that became "I" in the first person
// ("reports" is "report", "has" "have", "is" "am").
func agree(out []word, i int) {
	n := nextWord(out, i)
	for n >= 0 && adverbs[strings.ToLower(out[n].text)] {
		n = nextWord(out, n)
	}
	if n < 0 {
		return
	}
	out[n].text = firstPersonVerb(out[n].text)
}

// irregular are third-person verb forms that do not just drop an s.
var irregular = map[string]string{"is": "am", "has": "have", "does": "do", "doesn't": "don't", "isn't": "am not",
	"hasn't": "haven't", "goes": "go", "was": "was"}

// firstPersonVerb is the first-person form of a third-person present verb;
// any other word is returned as it is.
func firstPersonVerb(v string) string {
	lw := strings.ToLower(v)
	if r, ok := irregular[lw]; ok {
		return r
	}
	if len(lw) <= 3 || !strings.HasSuffix(lw, "s") || strings.HasSuffix(lw, "ss") || strings.HasSuffix(lw, "us") ||
		strings.HasSuffix(lw, "is") || strings.ContainsAny(v[:1], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		return v
	}
	switch {
	case strings.HasSuffix(lw, "ies"):
		return v[:len(v)-3] + "y"
	case strings.HasSuffix(lw, "ches"), strings.HasSuffix(lw, "shes"), strings.HasSuffix(lw, "sses"), strings.HasSuffix(lw, "xes"), strings.HasSuffix(lw, "zes"):
		return v[:len(v)-2]
	}
	return v[:len(v)-1]
}
