// Package tokens estimates how many tokens a model will count in a text
// before any model sees it: the one estimate the model client's rate limiter
// and the doctor's context budget (memory.context_tokens) share, so that a
// budget and a rate are counted alike.
package tokens

// CharsPerToken is the estimate's rate: about four characters a token, the
// usual figure for English text under BPE tokenizers (clinevo's own rule of
// thumb; no model's own tokenizer is consulted, so it runs offline for every
// role alike).
const CharsPerToken = 4

// Estimate is the tokens of a text of n bytes, rounded up: a non-empty text
// counts at least one token.
func Estimate(n int) int {
	if n <= 0 {
		return 0
	}
	return (n + CharsPerToken - 1) / CharsPerToken
}

// Of is the estimated tokens of text.
func Of(text string) int { return Estimate(len(text)) }
