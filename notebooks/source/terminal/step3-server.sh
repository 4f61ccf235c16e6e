npx wrangler dev --port 8787 --persist-to terminal-state
