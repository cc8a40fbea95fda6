package cmpcompat

import "os/exec"

var execCommand = exec.Command
