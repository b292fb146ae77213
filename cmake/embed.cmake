# Turn a text file into a C array: cmake -DIN=file -DOUT=file.c -DSYMBOL=name -P embed.cmake
file(READ "${IN}" _hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _bytes "${_hex}")
file(WRITE "${OUT}" "/* generated from ${IN}; do not edit */\n#include <stddef.h>\n"
     "const char ${SYMBOL}[] = {${_bytes}0x00};\nconst size_t ${SYMBOL}_len = sizeof ${SYMBOL} - 1;\n")
