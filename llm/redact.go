package llm

import (
	"regexp"
	"slices"
	"strings"
)

// Every text that comes from a provider (a reply, an error body, a model
// list) goes through a client's redactor before the client returns it, so a
// key an endpoint or a proxy echoes (a 401 body that quotes the
// Authorization header, as some do) never reaches a record, a log line, a
// workflow history or a command's output. It removes every secret the
// client knows (its own key and Options.Secrets) and anything spelled as a
// credential of a header (Bearer, Basic, api-key), whatever its value.

// minSecret is the shortest secret removed by value: a shorter "key" is no
// key at all, and removing every occurrence of a few common letters would
// garble replies (clinevo's own choice).
const minSecret = 8

// redacted replaces what the redactor removes.
const redacted = "[redacted]"

// scheme matches an Authorization header's credential (Bearer or Basic and
// its token) and named matches a credential named as one (api_key=...,
// x-api-key: ...); the scheme or name is kept, the value replaced. A
// scheme's token must look like one (16 characters or more, a digit among
// them: every key we know does), so that "a basic metabolic panel" in a
// reply stays as it is.
var (
	scheme = regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)([A-Za-z0-9._~+/=:-]{16,})`)
	named  = regexp.MustCompile(`(?i)\b(api[-_]?key|x-api-key|access[-_]?token)(["']?\s*[:=]\s*["']?)[A-Za-z0-9._~+/=-]{4,}`)
)

// redactor removes secrets from provider texts.
type redactor struct{ secrets []string }

// newRedactor knows secrets (the empty and short ones are left out),
// longest first, so a secret that holds another is removed whole.
func newRedactor(secrets ...string) redactor {
	var out []string
	for _, s := range secrets {
		if s = strings.TrimSpace(s); len(s) >= minSecret && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return redactor{secrets: out}
}

// text is s without any secret or credential.
func (r redactor) text(s string) string {
	for _, k := range r.secrets {
		s = strings.ReplaceAll(s, k, redacted)
	}
	s = scheme.ReplaceAllStringFunc(s, func(m string) string {
		g := scheme.FindStringSubmatch(m)
		if !strings.ContainsAny(g[3], "0123456789") {
			return m
		}
		return g[1] + g[2] + redacted
	})
	return named.ReplaceAllString(s, "${1}${2}"+redacted)
}

// message is a reply without any secret: its content, its parts, its
// reasoning and its tool calls' arguments.
func (r redactor) message(m Message) Message {
	m.Content = r.text(m.Content)
	m.ReasoningContent = r.text(m.ReasoningContent)
	m.Refusal = r.text(m.Refusal)
	parts := slices.Clone(m.MultiContent)
	for i := range parts {
		parts[i].Text = r.text(parts[i].Text)
	}
	m.MultiContent = parts
	calls := slices.Clone(m.ToolCalls)
	for i := range calls {
		calls[i].Function.Arguments = r.text(calls[i].Function.Arguments)
		calls[i].Function.Name = r.text(calls[i].Function.Name)
	}
	m.ToolCalls = calls
	if m.FunctionCall != nil {
		fc := *m.FunctionCall
		fc.Arguments = r.text(fc.Arguments)
		m.FunctionCall = &fc
	}
	return m
}
