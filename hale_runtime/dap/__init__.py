"""`hale dap`: the Debug Adapter Protocol over stdio, for VS Code, Neovim and Helix."""
