package manifest

import "strings"

// Article returns a kind (or any word) with "a" or "an" in front, as it is said: an
// acronym by the name of its first letter ("an HTTPRoute", "an
// OCIRepository", "a UDPRoute", "a GRPCRoute"), any other word by its first
// letter ("an ExternalArtifact", "a GitRepository").
func Article(word string) string {
	if word == "" {
		return word
	}
	first := word[0]
	acronym := len(word) > 1 && isUpper(first) && isUpper(word[1])
	vowelSound := strings.IndexByte("AEIOUaeiou", first) >= 0
	if acronym {
		vowelSound = strings.IndexByte("AEFHILMNORSX", first) >= 0
	}
	if vowelSound {
		return "an " + word
	}
	return "a " + word
}

func isUpper(b byte) bool { return 'A' <= b && b <= 'Z' }
