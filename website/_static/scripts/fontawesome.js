/* The course site's stand-in for the PyData theme's Font Awesome script (1.5 MB: every icon of Font Awesome, turned
   into inline SVG at load). Files of html_static_path replace the theme's of the same name; the theme's own
   stylesheet already draws every icon it uses from the web fonts it ships (vendor/fontawesome/webfonts), so the
   pages keep their icons without the script. tests/website/test_build.py checks the icons and the page weight. */
