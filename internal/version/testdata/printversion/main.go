// Command printversion prints version.Get(); version_test.go builds it with
// the linker flags the release uses.
package main

import (
	"fmt"

	"github.com/routeguard/routeguard/internal/version"
)

func main() { fmt.Println(version.Get()) }
